-- A bulk action's progress is read by GET (v3 returnBulkAction, the dashboard's progress page):
-- its writes count towards the store's validators like every other table a GET can read
-- (the triggers of 20261127120000_store_change_counter, made the same way).
CREATE TRIGGER "ReturnBulkAction_changes" BEFORE INSERT OR UPDATE ON "ReturnBulkAction" FOR EACH ROW
  WHEN (NEW."storeId" IS NOT NULL AND NEW."storeId" <> ALL (coalesce(string_to_array(nullif(current_setting('store_changes.counted', true), ''), ','), '{}')))
  EXECUTE FUNCTION "store_changes_count"('storeId');
CREATE TRIGGER "ReturnBulkAction_changes_delete" BEFORE DELETE ON "ReturnBulkAction" FOR EACH ROW
  WHEN (OLD."storeId" IS NOT NULL AND OLD."storeId" <> ALL (coalesce(string_to_array(nullif(current_setting('store_changes.counted', true), ''), ','), '{}')))
  EXECUTE FUNCTION "store_changes_count"('storeId');
