-- The audit trail's triggers fire once per statement, not once per row (issue 46): an order's
-- creation wrote its entries from about ten calls of the row trigger (the order, its group, each
-- line, each stock level, the store's counter), each an INSERT of one entry with its executor
-- set up for one row. Now each audited table has three statement triggers (insert, update,
-- delete: a trigger with transition tables takes one event), and each writes the entries of
-- every row its statement changed with one INSERT ... SELECT over the transition table.
--
-- The entries are the same: same columns, same `changes` shape, same parents and stores, none
-- for an update that changed only ignored columns. Within a statement the entries follow the
-- rows in the order the statement changed them, as the row triggers' did. What differs is the
-- order between tables inside one statement: a statement that writes several audited tables
-- (an order with its group and lines, a cascade) has its entries grouped by table, each table's
-- when its part of the statement ends, where the row triggers interleaved them. Nothing reads
-- entries in that order (the v3 trail lists entries by id and filters by object, parent, actor
-- and time). An update's old and new rows are paired by their position in the transition
-- tables, which PostgreSQL fills together, one pair per row changed; that is what the row
-- trigger's OLD and NEW were.
--
-- The trade the first audit migration made the other way ("a row trigger measured less than half
-- the cost" of a statement trigger, nearly every write changing one row per statement) is
-- measured again here against the writes of this service as they are now, in the README
-- (Benchmarks, orders).

-- The store and the record whose history a row of `table_name` belongs to, and its key: as
-- audit_record() placed them. A part whose parent went in the same statement (deleted with it)
-- keeps the parent its own columns name; its store is then null, and the entry takes the
-- actor's.
CREATE FUNCTION "audit_placement"(table_name text, key_columns text, r jsonb,
    OUT object_id text, OUT store_id text, OUT parent_kind text, OUT parent_id text)
  LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF strpos(key_columns, ',') = 0 THEN
    object_id := r->>key_columns;
  ELSE
    object_id := array_to_string(ARRAY(SELECT r->>c FROM unnest(string_to_array(key_columns, ',')) c), ':');
  END IF;
  store_id := r->>'storeId';
  -- Exactly the tables the CASE names.
  IF table_name IN ('Store', 'StoreLink', 'CustomerSubscription', 'CustomEvent', 'CustomFieldValue', 'Fulfillment',
      'OrderLineItem', 'FulfillmentGroup', 'FulfillmentLineItem', 'FulfillmentTrackingEvent', 'ReturnItem', 'ReturnNote',
      'InventoryLevel', 'ProductOptionValue', 'ProductImage', 'ProductFamilyOption', 'ProductFamilyImage', 'AttributeValue',
      'InboundShipmentItem', 'InboundShipmentPurchaseOrder', 'PurchaseOrderItem') THEN
    CASE table_name
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
END
$$;

-- `changes` with the secret columns' values (but a null) shown as "[hidden]": a secret is
-- recorded as changed, never its value.
CREATE FUNCTION "audit_hidden"(changes jsonb, hidden text[]) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (SELECT jsonb_object_agg(c.key, CASE WHEN c.key = ANY (hidden)
      THEN (SELECT jsonb_object_agg(h.key, CASE WHEN h.value = 'null' THEN h.value ELSE '"[hidden]"' END) FROM jsonb_each(c.value) h)
      ELSE c.value END)
    FROM jsonb_each(changes) c);

-- The entries of every row the statement inserted, changed or deleted (transition tables
-- new_rows and old_rows). Arguments as audit_record()'s: the key columns, the secret columns,
-- the columns to ignore besides "updatedAt" and "searchText" (each a comma-separated list).
-- PL/pgSQL compiles a trigger function per table, so each table's statements are planned once
-- per session with its own transition tables' row type.
CREATE FUNCTION "audit_record_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The columns never compared, as the object that blanks them in a row (jsonb_populate_record).
  ignored jsonb := '{"updatedAt": null, "searchText": null}';
  extra text[];
  hidden text[];
  context jsonb;
BEGIN
  IF current_setting('audit.disabled', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_ARGV[2] <> '' THEN
    extra := string_to_array(TG_ARGV[2], ',');
    ignored := ignored || jsonb_object(extra, array_fill(NULL::text, ARRAY[cardinality(extra)]));
  END IF;
  IF TG_ARGV[1] <> '' THEN hidden := string_to_array(TG_ARGV[1], ','); END IF;
  context := nullif(current_setting('audit.context', true), '')::jsonb;
  IF TG_OP = 'UPDATE' THEN
    -- An update that changed no compared column is found without JSON: the old and new rows,
    -- the ignored columns blanked, compared by their binary images (as audit_record() did).
    INSERT INTO "AuditEntry" ("storeId", "occurredAt", "actorKind", "actorId", "actorName", door, operation, "requestId",
        "objectKind", "objectId", "parentKind", "parentId", action, changes)
    SELECT coalesce(p.store_id, context->>'storeId'), now() AT TIME ZONE 'UTC',
        coalesce(context->>'actorKind', 'SYSTEM')::"AuditActorKind",
        CASE WHEN context IS NULL THEN session_user::text ELSE context->>'actorId' END,
        context->>'actorName', coalesce(context->>'door', 'database'), context->>'operation', context->>'requestId',
        TG_TABLE_NAME, p.object_id, p.parent_kind, p.parent_id, 'UPDATE',
        CASE WHEN hidden IS NULL THEN x.changes ELSE audit_hidden(x.changes, hidden) END
    FROM (
      SELECT a.k, j.r, (SELECT jsonb_object_agg(e.key, jsonb_build_object('before', j.before->e.key, 'after', e.value))
                          FROM jsonb_each(j.r) e WHERE e.value <> j.before->e.key AND NOT ignored ? e.key) AS changes
      FROM (SELECT row_number() OVER () AS k, o FROM old_rows o) b
      JOIN (SELECT row_number() OVER () AS k, n FROM new_rows n) a ON a.k = b.k
      CROSS JOIN LATERAL (SELECT to_jsonb(a.n) AS r, to_jsonb(b.o) AS before) j
      WHERE NOT (jsonb_populate_record(b.o, ignored) *= jsonb_populate_record(a.n, ignored))
    ) x
    CROSS JOIN LATERAL audit_placement(TG_TABLE_NAME, TG_ARGV[0], x.r) p
    WHERE x.changes IS NOT NULL
    ORDER BY x.k;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "AuditEntry" ("storeId", "occurredAt", "actorKind", "actorId", "actorName", door, operation, "requestId",
        "objectKind", "objectId", "parentKind", "parentId", action, changes)
    SELECT coalesce(p.store_id, context->>'storeId'), now() AT TIME ZONE 'UTC',
        coalesce(context->>'actorKind', 'SYSTEM')::"AuditActorKind",
        CASE WHEN context IS NULL THEN session_user::text ELSE context->>'actorId' END,
        context->>'actorName', coalesce(context->>'door', 'database'), context->>'operation', context->>'requestId',
        TG_TABLE_NAME, p.object_id, p.parent_kind, p.parent_id, 'INSERT',
        CASE WHEN hidden IS NULL THEN x.changes ELSE audit_hidden(x.changes, hidden) END
    FROM (
      SELECT j.r, (SELECT jsonb_object_agg(e.key, jsonb_build_object('after', e.value))
                     FROM jsonb_each(j.r) e WHERE e.value <> 'null' AND NOT ignored ? e.key) AS changes
      FROM new_rows n CROSS JOIN LATERAL (SELECT to_jsonb(n) AS r) j
    ) x
    CROSS JOIN LATERAL audit_placement(TG_TABLE_NAME, TG_ARGV[0], x.r) p;
  ELSE
    INSERT INTO "AuditEntry" ("storeId", "occurredAt", "actorKind", "actorId", "actorName", door, operation, "requestId",
        "objectKind", "objectId", "parentKind", "parentId", action, changes)
    SELECT coalesce(p.store_id, context->>'storeId'), now() AT TIME ZONE 'UTC',
        coalesce(context->>'actorKind', 'SYSTEM')::"AuditActorKind",
        CASE WHEN context IS NULL THEN session_user::text ELSE context->>'actorId' END,
        context->>'actorName', coalesce(context->>'door', 'database'), context->>'operation', context->>'requestId',
        TG_TABLE_NAME, p.object_id, p.parent_kind, p.parent_id, 'DELETE',
        CASE WHEN hidden IS NULL THEN x.changes ELSE audit_hidden(x.changes, hidden) END
    FROM (
      SELECT j.r, (SELECT jsonb_object_agg(e.key, jsonb_build_object('before', e.value))
                     FROM jsonb_each(j.r) e WHERE e.value <> 'null' AND NOT ignored ? e.key) AS changes
      FROM old_rows o CROSS JOIN LATERAL (SELECT to_jsonb(o) AS r) j
    ) x
    CROSS JOIN LATERAL audit_placement(TG_TABLE_NAME, TG_ARGV[0], x.r) p;
  END IF;
  RETURN NULL;
END
$$;

-- Each row trigger "<table>_audit" becomes three statement triggers with its arguments.
DO $$
DECLARE
  audited record;
  event text;
BEGIN
  FOR audited IN
    SELECT c.relname AS name, t.tgname,
           (SELECT string_agg(format('%L', a), ', ' ORDER BY n)
              FROM unnest((string_to_array(encode(t.tgargs, 'escape'), '\000'))[1:t.tgnargs]) WITH ORDINALITY AS x(a, n)) AS arguments
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE t.tgname = c.relname || '_audit' AND s.nspname = current_schema()
  LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', audited.tgname, audited.name);
    FOREACH event IN ARRAY ARRAY['insert', 'update', 'delete'] LOOP
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON %I REFERENCING %s FOR EACH STATEMENT EXECUTE FUNCTION "audit_record_rows"(%s)',
        audited.name || '_audit_' || event, upper(event), audited.name,
        CASE event WHEN 'insert' THEN 'NEW TABLE AS new_rows' WHEN 'update' THEN 'OLD TABLE AS old_rows NEW TABLE AS new_rows' ELSE 'OLD TABLE AS old_rows' END,
        audited.arguments);
    END LOOP;
  END LOOP;
END
$$;

DROP FUNCTION "audit_record"();
