-- AlterTable
ALTER TABLE "ReturnItem" ADD COLUMN     "customerComment" TEXT,
ADD COLUMN     "reasonCode" TEXT;


