-- Orders always commit stock (issue 11): every store gets a default location, and an
-- order line records how much of it was sold beyond what was available.

-- AlterTable
ALTER TABLE "OrderLineItem" ADD COLUMN     "oversoldQuantity" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Store" ADD COLUMN     "defaultLocationId" TEXT;

-- Backfill: a store without locations gets one, with the store's default origin address.
INSERT INTO "Location" ("id", "storeId", "name", "company", "street1", "street2", "city", "stateCode", "postalCode", "countryCode", "phone", "createdAt", "updatedAt")
SELECT 'loc_' || substr(md5(random()::text || s."id"), 1, 20), s."id", COALESCE(s."originName", 'Default location'), s."originCompany",
       s."originStreet1", s."originStreet2", s."originCity", s."originStateCode", s."originPostalCode", s."originCountryCode", s."originPhone",
       CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
FROM "Store" s
WHERE NOT EXISTS (SELECT 1 FROM "Location" l WHERE l."storeId" = s."id");

-- Every store's default is its oldest location.
UPDATE "Store" s SET "defaultLocationId" = (
  SELECT l."id" FROM "Location" l WHERE l."storeId" = s."id" ORDER BY l."createdAt", l."id" LIMIT 1
);

-- AddForeignKey
ALTER TABLE "Store" ADD CONSTRAINT "Store_defaultLocationId_fkey" FOREIGN KEY ("defaultLocationId") REFERENCES "Location"("id") ON DELETE SET NULL ON UPDATE CASCADE;
