-- The audit trail: who changed what, through which door and operation, in which request, and
-- the values before and after. It is written by triggers, in the transaction of the change, so
-- that every write (any door, job, import or SQL) leaves its entry and a write that rolls back
-- leaves none, without any of the service's code having to remember it.
--
-- Who is acting comes from the transaction's `audit.context` setting: one JSON object
-- ({actorKind, actorId, actorName, storeId, door, operation, requestId}) that the application
-- sets with set_config(..., true) as each transaction begins (src/domain/tx.ts, src/domain/audit.ts).
-- A change made without it (psql, a migration) is still recorded, as the SYSTEM actor named
-- by the database role. `audit.disabled = on` (local to a transaction, or a session's setting)
-- makes the triggers record nothing: for loading a dump that carries its own trail, and for
-- the bench's comparison run.
--
-- Audited: every table of the store's business state. Not audited, on purpose:
--   MerchantSession, ThrottleWindow            sign-ins and rate-limit windows: no change to the store's data
--                                              (and a session's token hash must not be copied anywhere)
--   CustomerPhoneNumber, CustomFieldOption     lookups derived from audited columns (Customer.phoneNumbers,
--                                              CustomFieldValue) in the same transaction
--   OrderCoverage, Invoice, InvoiceItem        derived from the order's lines or the return in the
--                                              transaction that sold or processed it, whose entries name who
--   InventoryAdjustment, ReturnStatusChange    ledgers of their level's / return's changes, each written beside
--                                              an audited change of that level or return
--   StorefrontEvent                            the storefront's pixel stream: the busiest write, never changed
--                                              once stored, and each row records its own source and time
--   Event, WebhookDelivery, WebhookQueue,      the outbox and its delivery machinery (claims, leases,
--   DeliveryAttempt                            attempts): bookkeeping, not business state
--   IdempotencyKey, IdempotentRequest,         stored answers of requests, locks, replica positions, change
--   BulkOperationLock, ReadPosition,           counters and persisted documents: bookkeeping of the service
--   StoreChangeCounter, PersistedQuery
-- Columns never compared: "updatedAt" (every change moves it), "searchText" (the search
-- document, written by the search triggers) and Store."nextOrderNumber" (the order counter;
-- the order's own entry records the number it took). Secrets (ApiClient."secretHash",
-- MerchantUser."passwordHash", WebhookSubscription.secret) are recorded as changed, as "[hidden]".
--
-- Row triggers, not statement triggers with transition tables: nearly every write of the
-- service changes one row per statement, and there a row trigger measured less than half the
-- cost (no transition tables to fill and read back, no join of old and new rows, no plan for a
-- set of rows; on PGlite a statement trigger's INSERT ... SELECT was planned anew for each
-- statement). An upsert also fires only the trigger of what it did (insert or update), where
-- INSERT ... ON CONFLICT fires both statement triggers. A row whose update left every compared
-- column as it was costs one comparison of two JSON values and records nothing.

-- CreateEnum
CREATE TYPE "AuditActorKind" AS ENUM ('API_CLIENT', 'MERCHANT_USER', 'SHOPPER', 'JOB', 'SYSTEM');

-- CreateEnum
CREATE TYPE "AuditAction" AS ENUM ('INSERT', 'UPDATE', 'DELETE');

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" BIGSERIAL NOT NULL,
    "storeId" TEXT,
    "occurredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorKind" "AuditActorKind" NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT,
    "door" TEXT NOT NULL,
    "operation" TEXT,
    "requestId" TEXT,
    "objectKind" TEXT NOT NULL,
    "objectId" TEXT NOT NULL,
    "parentKind" TEXT,
    "parentId" TEXT,
    "action" "AuditAction" NOT NULL,
    "changes" JSONB NOT NULL,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEntry_storeId_id_idx" ON "AuditEntry"("storeId", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_storeId_objectKind_objectId_id_idx" ON "AuditEntry"("storeId", "objectKind", "objectId", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_storeId_parentKind_parentId_id_idx" ON "AuditEntry"("storeId", "parentKind", "parentId", "id");

-- CreateIndex
CREATE INDEX "AuditEntry_storeId_actorKind_actorId_id_idx" ON "AuditEntry"("storeId", "actorKind", "actorId", "id");


-- A value as an entry shows it: a secret column's value as "[hidden]".
CREATE FUNCTION "audit_shown"(column_name text, value jsonb, hidden_columns text[]) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN column_name = ANY (hidden_columns) AND value <> 'null'::jsonb THEN '"[hidden]"'::jsonb ELSE value END;

-- One entry for the row a statement inserted, changed or deleted: the columns it set or
-- changed, the store, and the record whose history it belongs to when it is a part of one (an
-- order's line, a return's item, a product's stock level). A part whose parent went in the same
-- statement (deleted with it) keeps the parent its own columns name, and the actor's store.
-- Arguments: the key columns, the secret columns, the columns to ignore besides "updatedAt"
-- and "searchText" (each a comma-separated list).
CREATE FUNCTION "audit_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ignored_columns text[] := ARRAY['updatedAt', 'searchText'] || string_to_array(TG_ARGV[2], ',');
  hidden_columns text[] := string_to_array(TG_ARGV[1], ',');
  before jsonb;
  after jsonb;
  r jsonb;
  changes jsonb;
  context jsonb;
  object_id text;
  store_id text;
  parent_kind text;
  parent_id text;
BEGIN
  IF current_setting('audit.disabled', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN before := to_jsonb(OLD); END IF;
  IF TG_OP <> 'DELETE' THEN after := to_jsonb(NEW); END IF;
  IF TG_OP = 'UPDATE' AND before - ignored_columns = after - ignored_columns THEN RETURN NULL; END IF;
  r := coalesce(after, before);
  SELECT jsonb_object_agg(e.key, CASE
      WHEN before IS NULL THEN jsonb_build_object('after', audit_shown(e.key, e.value, hidden_columns))
      WHEN after IS NULL THEN jsonb_build_object('before', audit_shown(e.key, e.value, hidden_columns))
      ELSE jsonb_build_object('before', audit_shown(e.key, before->e.key, hidden_columns), 'after', audit_shown(e.key, e.value, hidden_columns))
    END) INTO changes
    FROM jsonb_each(r) e
   WHERE e.key <> ALL (ignored_columns)
     AND CASE WHEN before IS NULL OR after IS NULL THEN e.value <> 'null'::jsonb ELSE e.value IS DISTINCT FROM before->e.key END;

  IF strpos(TG_ARGV[0], ',') = 0 THEN
    object_id := r->>TG_ARGV[0];
  ELSE
    object_id := array_to_string(ARRAY(SELECT r->>c FROM unnest(string_to_array(TG_ARGV[0], ',')) c), ':');
  END IF;
  store_id := r->>'storeId';
  CASE TG_TABLE_NAME
    WHEN 'Store' THEN store_id := r->>'id';
    WHEN 'StoreLink' THEN store_id := r->>'merchantId';
    WHEN 'CustomerSubscription', 'CustomEvent' THEN
      parent_kind := 'Customer'; parent_id := r->>'customerId';
    WHEN 'CustomFieldValue' THEN
      parent_kind := 'Customer'; parent_id := r->>'customerId';
      store_id := (SELECT c."storeId" FROM "Customer" c WHERE c.id = parent_id);
    WHEN 'Fulfillment' THEN
      parent_kind := 'Order'; parent_id := r->>'orderId';
    WHEN 'OrderLineItem', 'FulfillmentGroup' THEN
      parent_kind := 'Order'; parent_id := r->>'orderId';
      store_id := (SELECT o."storeId" FROM "Order" o WHERE o.id = parent_id);
    WHEN 'FulfillmentLineItem' THEN
      parent_kind := 'Order';
      SELECT o.id, o."storeId" INTO parent_id, store_id
        FROM "OrderLineItem" l JOIN "Order" o ON o.id = l."orderId" WHERE l.id = r->>'orderLineItemId';
    WHEN 'FulfillmentTrackingEvent' THEN
      parent_kind := 'Order';
      SELECT f."orderId", f."storeId" INTO parent_id, store_id FROM "Fulfillment" f WHERE f.id = r->>'fulfillmentId';
    WHEN 'ReturnItem', 'ReturnNote' THEN
      parent_kind := 'Return'; parent_id := r->>'returnId';
      store_id := (SELECT x."storeId" FROM "Return" x WHERE x.id = parent_id);
    WHEN 'InventoryLevel' THEN
      parent_kind := 'Product'; parent_id := r->>'productId';
    WHEN 'ProductOptionValue', 'ProductImage' THEN
      parent_kind := 'Product'; parent_id := r->>'productId';
      store_id := (SELECT p."storeId" FROM "Product" p WHERE p.id = parent_id);
    WHEN 'ProductFamilyOption', 'ProductFamilyImage' THEN
      parent_kind := 'ProductFamily'; parent_id := r->>'familyId';
      store_id := (SELECT f."storeId" FROM "ProductFamily" f WHERE f.id = parent_id);
    WHEN 'AttributeValue' THEN
      IF r->>'productId' IS NOT NULL THEN parent_kind := 'Product'; parent_id := r->>'productId';
      ELSE parent_kind := 'ProductFamily'; parent_id := r->>'familyId';
      END IF;
      store_id := (SELECT a."storeId" FROM "Attribute" a WHERE a.id = r->>'attributeId');
    WHEN 'InboundShipmentItem', 'InboundShipmentPurchaseOrder' THEN
      parent_kind := 'InboundShipment'; parent_id := r->>'shipmentId';
      store_id := (SELECT s."storeId" FROM "InboundShipment" s WHERE s.id = parent_id);
    WHEN 'PurchaseOrderItem' THEN
      parent_kind := 'PurchaseOrder'; parent_id := r->>'purchaseOrderId';
      store_id := (SELECT p."storeId" FROM "PurchaseOrder" p WHERE p.id = parent_id);
    ELSE NULL;
  END CASE;

  context := nullif(current_setting('audit.context', true), '')::jsonb;
  INSERT INTO "AuditEntry" ("storeId", "occurredAt", "actorKind", "actorId", "actorName", door, operation, "requestId",
      "objectKind", "objectId", "parentKind", "parentId", action, changes)
  VALUES (coalesce(store_id, context->>'storeId'), now() AT TIME ZONE 'UTC',
      coalesce(context->>'actorKind', 'SYSTEM')::"AuditActorKind",
      CASE WHEN context IS NULL THEN session_user::text ELSE context->>'actorId' END,
      context->>'actorName', coalesce(context->>'door', 'database'), context->>'operation', context->>'requestId',
      TG_TABLE_NAME, object_id, parent_kind, parent_id, TG_OP::"AuditAction", changes);
  RETURN NULL;
END
$$;

-- The audited tables: name, key columns, secret columns, ignored columns.
DO $$
DECLARE
  audited record;
BEGIN
  FOR audited IN SELECT * FROM (VALUES
    ('Store', 'id', '', 'nextOrderNumber'),
    ('StoreLink', 'merchantId,fulfillmentServiceId', '', ''),
    ('ApiClient', 'id', 'secretHash', ''),
    ('MerchantUser', 'id', 'passwordHash', ''),
    ('Customer', 'id', '', ''),
    ('CustomerSubscription', 'customerId,channel,kind', '', ''),
    ('CustomEvent', 'id', '', ''),
    ('CustomFieldDeclaration', 'id', '', ''),
    ('CustomFieldValue', 'customerId,declarationId', '', ''),
    ('Order', 'id', '', ''),
    ('OrderLineItem', 'id', '', ''),
    ('FulfillmentGroup', 'id', '', ''),
    ('Fulfillment', 'id', '', ''),
    ('FulfillmentLineItem', 'id', '', ''),
    ('FulfillmentTrackingEvent', 'id', '', ''),
    ('CoverageProduct', 'id', '', ''),
    ('BillingSetting', 'storeId', '', ''),
    ('Return', 'id', '', ''),
    ('ReturnItem', 'id', '', ''),
    ('ReturnNote', 'id', '', ''),
    -- A tag is renamed by changing its name, a part of its primary key: its numeric id stays.
    ('ReturnTag', 'numericId', '', ''),
    ('ProductFamily', 'id', '', ''),
    ('ProductFamilyOption', 'id', '', ''),
    ('ProductFamilyImage', 'id', '', ''),
    ('Product', 'id', '', ''),
    ('ProductOptionValue', 'productId,optionId', '', ''),
    ('ProductImage', 'id', '', ''),
    ('Attribute', 'id', '', ''),
    ('AttributeValue', 'id', '', ''),
    ('Location', 'id', '', ''),
    ('InventoryLevel', 'id', '', ''),
    ('InboundShipment', 'id', '', ''),
    ('InboundShipmentItem', 'id', '', ''),
    ('InboundShipmentPurchaseOrder', 'shipmentId,purchaseOrderId', '', ''),
    ('PurchaseOrder', 'id', '', ''),
    ('PurchaseOrderItem', 'id', '', ''),
    ('WebhookSubscription', 'id', 'secret', '')
  ) AS t(name, key_columns, hidden_columns, ignored_columns) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION "audit_record"(%L, %L, %L)',
      audited.name || '_audit', audited.name, audited.key_columns, audited.hidden_columns, audited.ignored_columns);
  END LOOP;
END
$$;
