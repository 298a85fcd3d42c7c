-- CreateTable
CREATE TABLE "ReadPosition" (
    "actor" TEXT NOT NULL,
    "lsn" BIGINT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReadPosition_pkey" PRIMARY KEY ("actor")
);

-- CreateIndex
CREATE INDEX "ReadPosition_updatedAt_idx" ON "ReadPosition"("updatedAt");
