-- A cheaper audit_record() (issue 36: the audit trail may cost the two hottest writes at most 10%
-- of their rate; it measured 6.6-8.4%). Same entries, same stored shape of `changes`
-- ({"column": {"before": v, "after": v}}), same triggers and arguments: only the function's body
-- changes. Measured per audited row, trigger on minus `audit.disabled = on`, as instructions
-- (valgrind on a single-user PostgreSQL 15 backend, which the machine's other work does not blur),
-- one row per transaction as the service writes them, in thousands, before -> after:
--   Customer insert 466 -> 401, update 482 -> 417, delete 477 -> 411, Order insert 653 -> 584;
--   an update that records nothing: Customer (updatedAt only) 116 -> 29, the order whose search
--   document its new lines refreshed 241 -> 49, the store's order counter 139 -> 51.
-- By time (CPU of the database, µs a row, 1,000 rows in one transaction, medians of 9): PostgreSQL
-- insert 55 -> 54, update 56 -> 50, update of updatedAt only 7.6 -> 2.5, order line insert with its
-- order's refresh 161 -> 132; PGlite 113 -> 104, 116 -> 102, 15 -> 5, 263 -> 213.
-- An order creation fires the trigger ten times (eight entries, the store's counter, the order's
-- refresh): 4,570 -> 3,890 thousand summed from the rows above, 15% less; a customer upsert fires
-- it once, an update: 13% less.
--
-- What changed, and why:
-- * An update that changed no compared column is found without JSON: the old and new rows, the
--   ignored columns blanked (jsonb_populate_record), compared by their binary images (*=), instead
--   of turning both rows into jsonb (the numbers above). Equal images are equal values; rows whose
--   images differ while every compared value is equal (1.0 and 1.00 in a numeric) still record
--   nothing, as their `changes` below come out empty.
-- * `changes` is one pass over the row that builds each member directly: for an insert or a delete
--   its non-null columns, for an update the columns whose value changed. The secret columns are
--   hidden afterwards, only on the three tables that have one, instead of an audit_shown() call
--   for every column of every row (audit_shown() goes): 30-40 thousand less a recorded row.
-- * The parent and store of a part are looked up only for the tables that are parts: one test of
--   the table's name instead of a CASE whose twenty WHENs every other table (Customer, Order,
--   Product, ...) evaluated before its ELSE: 31 thousand less on an Order's insert.
-- Tried and left: the context taken apart into variables before the INSERT (7 thousand less in a
-- long transaction, 12 more in a one-row one) or with jsonb_to_record in it (slower by time);
-- `changes` built as text (string_agg, or a FOREACH over the keys, then one cast), within 3%;
-- computing `changes` inside the INSERT, no better. A stored shape {"before": {...}, "after": {...}}
-- would let an insert's or delete's `changes` come from C functions alone (jsonb_build_object of
-- the row): 150 thousand less on a Customer row, 250 on an Order. But jsonb_strip_nulls also drops
-- the null members nested in a JSON column (an address's "address2": null), and removing only the
-- top-level nulls (a jsonpath query of their keys) keeps 70 of each, which does not pay for a second
-- shape, the conversion of the stored entries and of their readers.
-- What is left is mostly the entry's INSERT (the executor set up for one row, the five indexes the
-- v3 filters need) and to_jsonb of the rows.

DROP FUNCTION "audit_shown"(text, jsonb, text[]);

-- One entry for the row a statement inserted, changed or deleted: the columns it set or
-- changed, the store, and the record whose history it belongs to when it is a part of one (an
-- order's line, a return's item, a product's stock level). A part whose parent went in the same
-- statement (deleted with it) keeps the parent its own columns name, and the actor's store.
-- Arguments: the key columns, the secret columns, the columns to ignore besides "updatedAt"
-- and "searchText" (each a comma-separated list).
CREATE OR REPLACE FUNCTION "audit_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The columns never compared, as the object that blanks them in a row (jsonb_populate_record).
  ignored jsonb := '{"updatedAt": null, "searchText": null}';
  extra text[];
  r jsonb;
  before jsonb;
  changes jsonb;
  context jsonb;
  object_id text;
  store_id text;
  parent_kind text;
  parent_id text;
  hidden text;
BEGIN
  IF current_setting('audit.disabled', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_ARGV[2] <> '' THEN
    extra := string_to_array(TG_ARGV[2], ',');
    ignored := ignored || jsonb_object(extra, array_fill(NULL::text, ARRAY[cardinality(extra)]));
  END IF;
  IF TG_OP = 'UPDATE' THEN
    IF jsonb_populate_record(OLD, ignored) *= jsonb_populate_record(NEW, ignored) THEN RETURN NULL; END IF;
    r := to_jsonb(NEW);
    before := to_jsonb(OLD);
    SELECT jsonb_object_agg(e.key, jsonb_build_object('before', before->e.key, 'after', e.value)) INTO changes
      FROM jsonb_each(r) e
     WHERE e.value <> before->e.key AND NOT ignored ? e.key;
    IF changes IS NULL THEN RETURN NULL; END IF;
  ELSE
    IF TG_OP = 'INSERT' THEN r := to_jsonb(NEW); ELSE r := to_jsonb(OLD); END IF;
    SELECT jsonb_object_agg(e.key, jsonb_build_object(CASE TG_OP WHEN 'INSERT' THEN 'after' ELSE 'before' END, e.value)) INTO changes
      FROM jsonb_each(r) e
     WHERE e.value <> 'null' AND NOT ignored ? e.key;
  END IF;
  -- A secret is recorded as changed, its values (but a null) as "[hidden]".
  IF TG_ARGV[1] <> '' THEN
    FOREACH hidden IN ARRAY string_to_array(TG_ARGV[1], ',') LOOP
      IF changes ? hidden THEN
        changes := jsonb_set(changes, ARRAY[hidden],
          (SELECT jsonb_object_agg(h.key, CASE WHEN h.value = 'null' THEN h.value ELSE '"[hidden]"' END) FROM jsonb_each(changes->hidden) h));
      END IF;
    END LOOP;
  END IF;

  IF strpos(TG_ARGV[0], ',') = 0 THEN
    object_id := r->>TG_ARGV[0];
  ELSE
    object_id := array_to_string(ARRAY(SELECT r->>c FROM unnest(string_to_array(TG_ARGV[0], ',')) c), ':');
  END IF;
  store_id := r->>'storeId';
  -- Exactly the tables the CASE names.
  IF TG_TABLE_NAME IN ('Store', 'StoreLink', 'CustomerSubscription', 'CustomEvent', 'CustomFieldValue', 'Fulfillment',
      'OrderLineItem', 'FulfillmentGroup', 'FulfillmentLineItem', 'FulfillmentTrackingEvent', 'ReturnItem', 'ReturnNote',
      'InventoryLevel', 'ProductOptionValue', 'ProductImage', 'ProductFamilyOption', 'ProductFamilyImage', 'AttributeValue',
      'InboundShipmentItem', 'InboundShipmentPurchaseOrder', 'PurchaseOrderItem') THEN
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
  END IF;

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
