-- CreateTable
CREATE TABLE "PepperFingerprint" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "fingerprint" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PepperFingerprint_pkey" PRIMARY KEY ("id")
);
