-- A change counter per store, from which every GET answer's validator (ETag) is made
-- (src/conditionalRequests.ts). Triggers bump it in the transaction of every write to a
-- table whose rows a GET answer can read, whoever writes (any door, a job, an import, SQL),
-- so a committed write has changed the validator of every answer it changes before its
-- response is sent, and a rolled-back one changes nothing.
--
-- Contention: no row is written by two transactions. A row per store that every write
-- updated would be locked from a transaction's first write to its commit, serialising the
-- store's writes; shards of it (a transaction updating the shard its id names) would make the
-- waits rarer but not the deadlocks they bring: a transaction holding a shard from its first
-- write can wait for a row that another transaction locked (SELECT ... FOR UPDATE) before its
-- own first write on the same shard. So each transaction that writes a store inserts a row of
-- its own for it (its transaction id is the key: an insert waits for no one), once per store
-- (a transaction-local setting remembers which stores it counted; a savepoint rolled back
-- forgets them with their rows). A store's count is the sum of its rows, read by one statement
-- over the primary key; every few seconds the background work folds the rows of finished
-- transactions into one row per store (transactionId 0) in one statement, which leaves every
-- sum as it was (db/storeChanges.ts).
--
-- Cost: a row that names its store ("storeId", or a Store row's id) fires its trigger only
-- while its transaction has not counted that store: the trigger's WHEN condition, which
-- PostgreSQL evaluates without calling the function, so after a transaction's first row of a
-- store its rows cost one comparison each. A row of a table without a store column looks its
-- parent up by primary key (one cached lookup; two for a delivery attempt). (Statement
-- triggers with transition tables, as in 20261127000000_search_documents, were measured
-- first: about 45 µs a call, four calls per customer upsert, a quarter of its rate.)
--
-- Tables that bump: every table whose rows any GET answer can read. Tables that do not,
-- because no answer reads them:
--   MerchantSession, ThrottleWindow    dashboard sign-ins and login throttling
--   BulkOperationLock                  the lease of a running bulk upload
--   IdempotencyKey, IdempotentRequest  stored replays of writes, read only by those writes
--   WebhookQueue                       the dispatcher's queue bookkeeping
--   StoreLink                          who may see whose locations and levels: the validator
--                                      reads the counters of every linked store, so a new
--                                      link changes it by itself
-- WebhookDelivery's own lease columns (lockedBy, lockedUntil, queued), which the dispatcher
-- rewrites at every claim, are not read by any answer either: an update of only those bumps
-- nothing.

-- CreateTable
CREATE TABLE "StoreChangeCounter" (
    "storeId" TEXT NOT NULL,
    "transactionId" BIGINT NOT NULL,
    "value" BIGINT NOT NULL,

    CONSTRAINT "StoreChangeCounter_pkey" PRIMARY KEY ("storeId","transactionId")
);

-- Counts the current transaction for `store` (once: the setting remembers the stores counted).
CREATE FUNCTION "store_changes_bump"(store text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "StoreChangeCounter" ("storeId", "transactionId", value)
    VALUES (store, txid_current(), 1 + floor(random() * 2147483647)::bigint)
  ON CONFLICT DO NOTHING;
  PERFORM set_config('store_changes.counted', concat_ws(',', nullif(current_setting('store_changes.counted', true), ''), store), true);
END
$$;

-- Before each written row: its store (TG_ARGV[0] names where it is: the row's own "storeId",
-- the Store row itself, or the parent table whose row has it), counted unless its transaction
-- counted it already. A row a later trigger skips is counted all the same, which only makes a
-- validator change early; a row whose parent is gone (a cascade) was counted with the parent.
CREATE FUNCTION "store_changes_count"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
  store text;
BEGIN
  -- Most rows name their store: read from the row as it is, not from a copy of it.
  IF TG_ARGV[0] = 'storeId' THEN
    IF TG_OP = 'DELETE' THEN store := OLD."storeId"; ELSE store := NEW."storeId"; END IF;
  ELSIF TG_ARGV[0] = 'Store' THEN
    IF TG_OP = 'DELETE' THEN store := OLD.id; ELSE store := NEW.id; END IF;
  ELSE
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    CASE TG_ARGV[0]
      WHEN 'Order' THEN SELECT p."storeId" INTO store FROM "Order" p WHERE p.id = r."orderId";
      WHEN 'Return' THEN SELECT p."storeId" INTO store FROM "Return" p WHERE p.id = r."returnId";
      WHEN 'Customer' THEN SELECT p."storeId" INTO store FROM "Customer" p WHERE p.id = r."customerId";
      WHEN 'CustomFieldDeclaration' THEN SELECT p."storeId" INTO store FROM "CustomFieldDeclaration" p WHERE p.id = r."declarationId";
      WHEN 'Fulfillment' THEN SELECT p."storeId" INTO store FROM "Fulfillment" p WHERE p.id = r."fulfillmentId";
      WHEN 'Invoice' THEN SELECT p."storeId" INTO store FROM "Invoice" p WHERE p.id = r."invoiceId";
      WHEN 'ProductFamily' THEN SELECT p."storeId" INTO store FROM "ProductFamily" p WHERE p.id = r."familyId";
      WHEN 'Product' THEN SELECT p."storeId" INTO store FROM "Product" p WHERE p.id = r."productId";
      WHEN 'Attribute' THEN SELECT p."storeId" INTO store FROM "Attribute" p WHERE p.id = r."attributeId";
      WHEN 'InventoryLevel' THEN SELECT p."storeId" INTO store FROM "InventoryLevel" p WHERE p.id = r."levelId";
      WHEN 'InboundShipment' THEN SELECT p."storeId" INTO store FROM "InboundShipment" p WHERE p.id = r."shipmentId";
      WHEN 'PurchaseOrder' THEN SELECT p."storeId" INTO store FROM "PurchaseOrder" p WHERE p.id = r."purchaseOrderId";
      WHEN 'WebhookSubscription' THEN SELECT p."storeId" INTO store FROM "WebhookSubscription" p WHERE p.id = r."subscriptionId";
      WHEN 'WebhookDelivery' THEN
        SELECT s."storeId" INTO store FROM "WebhookDelivery" d JOIN "WebhookSubscription" s ON s.id = d."subscriptionId" WHERE d.id = r."deliveryId";
    END CASE;
  END IF;
  IF store IS NOT NULL AND store <> ALL (coalesce(string_to_array(nullif(current_setting('store_changes.counted', true), ''), ','), '{}')) THEN
    PERFORM store_changes_bump(store);
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END
$$;

-- A row that names its store has its triggers fire only while its transaction has not
-- counted that store (WHEN, which PostgreSQL tests without calling the function): one trigger
-- for inserts and updates (the new row), one for deletes (the old one). A row of a table
-- without a store column has one trigger for every event, which looks its parent up; a
-- delivery's update only where more than its lease changed. AuditEntry comes from the audit
-- trail's migration (20261127110000_audit_trail), when present.
DO $$
DECLARE
  counted record;
  pending constant text := $w$%1$s IS NOT NULL AND %1$s <> ALL (coalesce(string_to_array(nullif(current_setting('store_changes.counted', true), ''), ','), '{}'))$w$;
  create_trigger constant text := 'CREATE TRIGGER %I BEFORE %s ON %I FOR EACH ROW %s EXECUTE FUNCTION "store_changes_count"(%L)';
BEGIN
  FOR counted IN SELECT * FROM (VALUES
    ('Store', 'Store'),
    ('ApiClient', 'storeId'),
    ('MerchantUser', 'storeId'),
    ('Customer', 'storeId'),
    ('CustomerPhoneNumber', 'storeId'),
    ('CustomerSubscription', 'storeId'),
    ('CustomEvent', 'storeId'),
    ('CustomFieldDeclaration', 'storeId'),
    ('CustomFieldOption', 'CustomFieldDeclaration'),
    ('CustomFieldValue', 'Customer'),
    ('Order', 'storeId'),
    ('OrderLineItem', 'Order'),
    ('Fulfillment', 'storeId'),
    ('FulfillmentLineItem', 'Fulfillment'),
    ('FulfillmentTrackingEvent', 'Fulfillment'),
    ('FulfillmentGroup', 'Order'),
    ('CoverageProduct', 'storeId'),
    ('OrderCoverage', 'storeId'),
    ('StorefrontEvent', 'storeId'),
    ('Invoice', 'storeId'),
    ('InvoiceItem', 'Invoice'),
    ('BillingSetting', 'storeId'),
    ('Return', 'storeId'),
    ('ReturnItem', 'Return'),
    ('ReturnNote', 'Return'),
    ('ReturnTag', 'storeId'),
    ('ReturnStatusChange', 'Return'),
    ('ProductFamily', 'storeId'),
    ('ProductFamilyOption', 'ProductFamily'),
    ('Product', 'storeId'),
    ('ProductOptionValue', 'Product'),
    ('ProductImage', 'Product'),
    ('ProductFamilyImage', 'ProductFamily'),
    ('Attribute', 'storeId'),
    ('AttributeValue', 'Attribute'),
    ('Location', 'storeId'),
    ('InventoryLevel', 'storeId'),
    ('InventoryAdjustment', 'InventoryLevel'),
    ('InboundShipment', 'storeId'),
    ('InboundShipmentItem', 'InboundShipment'),
    ('InboundShipmentPurchaseOrder', 'InboundShipment'),
    ('PurchaseOrder', 'storeId'),
    ('PurchaseOrderItem', 'PurchaseOrder'),
    ('WebhookSubscription', 'storeId'),
    ('Event', 'storeId'),
    ('WebhookDelivery', 'WebhookSubscription'),
    ('DeliveryAttempt', 'WebhookDelivery'),
    ('AuditEntry', 'storeId')
  ) AS t(name, via) WHERE to_regclass(format('%I', name)) IS NOT NULL LOOP
    IF counted.via IN ('storeId', 'Store') THEN
      -- An audit entry is inserted only by the audit triggers, beside the change of a counted
      -- table of its store that it records (or of a StoreLink, which changes validators by
      -- itself): counting its insert again would cost a trigger per entry for nothing.
      EXECUTE format(create_trigger, counted.name || '_changes', CASE counted.name WHEN 'AuditEntry' THEN 'UPDATE' ELSE 'INSERT OR UPDATE' END, counted.name,
        format('WHEN (' || pending || ')', format('NEW.%I', CASE counted.via WHEN 'Store' THEN 'id' ELSE 'storeId' END)), counted.via);
      EXECUTE format(create_trigger, counted.name || '_changes_delete', 'DELETE', counted.name,
        format('WHEN (' || pending || ')', format('OLD.%I', CASE counted.via WHEN 'Store' THEN 'id' ELSE 'storeId' END)), counted.via);
    ELSIF counted.name = 'WebhookDelivery' THEN
      EXECUTE format(create_trigger, counted.name || '_changes', 'INSERT OR DELETE', counted.name, '', counted.via);
      -- The dispatcher rewrites a delivery's lease (lockedBy, lockedUntil, queued) at every claim; no answer reads it.
      EXECUTE format(create_trigger, counted.name || '_changes_update', 'UPDATE', counted.name,
        $w$WHEN (to_jsonb(NEW) - '{lockedBy,lockedUntil,queued}'::text[] IS DISTINCT FROM to_jsonb(OLD) - '{lockedBy,lockedUntil,queued}'::text[])$w$, counted.via);
    ELSE
      EXECUTE format(create_trigger, counted.name || '_changes', 'INSERT OR UPDATE OR DELETE', counted.name, '', counted.via);
    END IF;
  END LOOP;
END
$$;
