-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "clientIp" TEXT,
ADD COLUMN     "host" TEXT,
ADD COLUMN     "nextVerifyAt" TIMESTAMPTZ(3),
ADD COLUMN     "verifyAttempts" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "WebhookSubscription_status_nextVerifyAt_idx" ON "WebhookSubscription"("status", "nextVerifyAt");

-- CreateIndex
CREATE INDEX "WebhookSubscription_clientIp_status_idx" ON "WebhookSubscription"("clientIp", "status");

-- CreateIndex
CREATE INDEX "WebhookSubscription_host_status_idx" ON "WebhookSubscription"("host", "status");
