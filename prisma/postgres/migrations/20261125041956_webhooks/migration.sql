-- CreateTable
CREATE TABLE "WebhookSubscription" (
    "id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sellerPayTo" TEXT,
    "listingIds" JSONB,
    "search" JSONB,
    "eventTypes" JSONB,
    "secret" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "challenge" TEXT,
    "disabledReason" TEXT,
    "fromSeq" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "verifiedAt" TIMESTAMPTZ(3),

    CONSTRAINT "WebhookSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" UUID NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventSeq" INTEGER NOT NULL,
    "listingId" UUID NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL,
    "lastAttemptAt" TIMESTAMPTZ(3),
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "deliveredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OutboxCursor" (
    "name" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "OutboxCursor_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "WebhookSubscription_status_idx" ON "WebhookSubscription"("status");

-- CreateIndex
CREATE INDEX "WebhookSubscription_sellerPayTo_idx" ON "WebhookSubscription"("sellerPayTo");

-- CreateIndex
CREATE INDEX "WebhookSubscription_url_idx" ON "WebhookSubscription"("url");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_subscriptionId_status_eventSeq_idx" ON "WebhookDelivery"("subscriptionId", "status", "eventSeq");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_subscriptionId_eventId_key" ON "WebhookDelivery"("subscriptionId", "eventId");

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "WebhookSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;
