-- CreateTable
CREATE TABLE "ServiceKey" (
    "name" TEXT NOT NULL,
    "privateKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ServiceKey_pkey" PRIMARY KEY ("name")
);
