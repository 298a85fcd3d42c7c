-- DropForeignKey
ALTER TABLE "RateLimitWindow" DROP CONSTRAINT "RateLimitWindow_apiClientId_fkey";

-- DropTable
DROP TABLE "RateLimitWindow";


