-- AlterTable
ALTER TABLE "Return" ADD COLUMN     "originAddress" JSONB,
ADD COLUMN     "trackingUrl" TEXT;

-- CreateTable
CREATE TABLE "ReturnTag" (
    "storeId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "pillTheme" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'merchant',
    "numericId" SERIAL NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReturnTag_pkey" PRIMARY KEY ("storeId","name")
);

-- CreateIndex
CREATE UNIQUE INDEX "ReturnTag_numericId_key" ON "ReturnTag"("numericId");

-- AddForeignKey
ALTER TABLE "ReturnTag" ADD CONSTRAINT "ReturnTag_storeId_fkey" FOREIGN KEY ("storeId") REFERENCES "Store"("id") ON DELETE CASCADE ON UPDATE CASCADE;


