-- CreateTable
CREATE TABLE "ServiceKey" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "privateKey" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);
