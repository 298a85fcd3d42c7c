// The GraphQL operations behind every dashboard and portal page. The web door is a
// fourth door onto the one schema: it reads and writes only through these.
import { defineOperation } from '../schema/execute.ts';

const RETURN_FIELDS = `id number status type createdAt updatedAt currency
  order { id name }
  total { amount currency }`;

const ERASURE_COUNTS = `customers customerPhoneNumbers customFieldValues customFieldOptions customerSubscriptions orders fulfillmentTrackingEvents
  returns returnItems returnNotes customEvents storefrontEvents webhookEvents webhookDeliveries deliveryAttempts auditEntries storedAnswers persistedQueries`;

const ORDER_ROW_FIELDS = `id name placedAt totalPrice { amount currency } submittedCustomer { name firstName lastName email phoneNumber }`;

/** A page of audit entries as the history sections show them. */
const AUDIT_PAGE = `nodes { id occurredAt actor { kind id name } door operation requestId object { kind id } parent { kind id } action
    changes { field before after } }
  pageInfo { hasNextPage endCursor }`;

export const ops = {
  storeName: defineOperation(`query StoreName { store { id name } }`),

  // The overview's figures of a period (the dashboard's first page).
  returnsOverview: defineOperation(`query ReturnsOverview($from: DateTime!, $to: DateTime!) { returnsOverview(from: $from, to: $to) {
    asOf
    needingAction { total byStatus { status count } byAge { age minDays maxDays count } }
    days { day opened completed }
    refunds { currency refunded { amount } storeCredit { amount } days { day refunded { amount } storeCredit { amount } } }
    fees { currency total { amount } days { day amount { amount } } }
    returnRate { unitsOrdered unitsReturned rate top { sku title unitsOrdered unitsReturned rate } }
    reasons { reason units returns }
    completion { completed medianSeconds } } }`),
  apiClients: defineOperation(`query ApiClients { apiClients { id name scopes revokedAt createdAt } }`),
  apiClientCreate: defineOperation(`mutation ApiClientCreate($name: String!, $scopes: [ApiScope!]!) {
    apiClientCreate(name: $name, scopes: $scopes) { secret apiClient { id name scopes } } }`),
  apiClientRevoke: defineOperation(`mutation ApiClientRevoke($id: ID!) { apiClientRevoke(id: $id) { id name revokedAt } }`),

  // The history of a record (with its parts), and what one actor changed.
  objectHistory: defineOperation(`query ObjectHistory($kind: AuditObjectKind!, $id: String!, $after: String) {
    auditEntries(first: 50, after: $after, object: { kind: $kind, id: $id }) { ${AUDIT_PAGE} } }`),
  actorHistory: defineOperation(`query ActorHistory($kind: AuditActorKind!, $id: String!, $after: String) {
    auditEntries(first: 50, after: $after, actor: { kind: $kind, id: $id }) { ${AUDIT_PAGE} } }`),

  coverageSettings: defineOperation(`query CoverageSettings {
    coverageProducts { id type enabled title description percentage minimumPrice maximumPrice eligibleProductIds }
    billingSettings { returnProcessingFee { amount currency } } }`),
  updateCoverage: defineOperation(`mutation UpdateCoverage($input: CoverageSettingsInput!) {
    coverageSettingsUpdate(input: $input) { userErrors { field message } } }`),
  updateBilling: defineOperation(`mutation UpdateBilling($input: BillingSettingsInput!) {
    billingSettingsUpdate(input: $input) { userErrors { field message } } }`),

  webhooks: defineOperation(`query Webhooks { webhookTopics webhookSubscriptions(first: 100) { nodes { id url topics enabled createdAt } } }`),
  createWebhook: defineOperation(`mutation CreateWebhook($input: WebhookSubscriptionCreateInput!) { webhookSubscriptionCreate(input: $input) { id url } }`),
  updateWebhook: defineOperation(`mutation UpdateWebhook($id: ID!, $input: WebhookSubscriptionUpdateInput!) {
    webhookSubscriptionUpdate(id: $id, input: $input) { id enabled } }`),
  deleteWebhook: defineOperation(`mutation DeleteWebhook($id: ID!) { webhookSubscriptionDelete(id: $id) }`),
  retryDelivery: defineOperation(`mutation RetryDelivery($id: ID!) { webhookDeliveryRetry(id: $id) { id event { id } } }`),
  replayWebhook: defineOperation(`mutation ReplayWebhook($id: ID!, $since: DateTime!) { webhookSubscriptionReplay(id: $id, since: $since) }`),
  webhook: defineOperation(`query Webhook($id: ID!, $after: String) {
    webhookTopics
    webhookSubscription(id: $id) { id url topics enabled createdAt }
    webhookDeliveries(subscriptionId: $id, first: 50, after: $after) { nodes {
      id status attemptCount nextAttemptAt lastError completedAt createdAt
      event { id topic subjectId }
      attempts { attemptNumber startedAt durationMs responseStatus error } }
      pageInfo { hasNextPage endCursor } } }`),

  // The search boxes pass what was typed as `query` (the v3 search syntax); a malformed one is BAD_USER_INPUT.
  returns: defineOperation(`query Returns($status: [ReturnStatus!], $q: String, $after: String, $sortKey: ReturnSortKey, $reverse: Boolean) {
    returns(first: 50, after: $after, status: $status, query: $q, sortKey: $sortKey, reverse: $reverse) {
      nodes { ${RETURN_FIELDS} customerEmail customerFirstName customerLastName order { submittedCustomer { name email } }
        items { quantity reason outcome } }
      pageInfo { hasNextPage endCursor } } }`),
  // The queue's status tabs, with the count of each for the search typed; the tag choice of its bulk form.
  returnQueueTabs: defineOperation(`query ReturnQueueTabs($q: String) { returnStatusCounts(query: $q) { status count } returnTags { name } }`),
  returnsBulkAction: defineOperation(`mutation ReturnsBulkAction($key: String!, $action: ReturnBulkActionKind!, $ids: [ID!], $matching: ReturnBulkMatchingInput, $argument: String) {
    returnsBulkAction(key: $key, action: $action, ids: $ids, matching: $matching, argument: $argument) { key state } }`),
  returnBulkAction: defineOperation(`query ReturnBulkAction($key: String!) {
    returnBulkAction(key: $key) { key action argument state total doneCount refusedCount createdAt updatedAt
      refused: results(refusedOnly: true) { returnId number refusal } } }`),
  // The returns list reads itself again when one changes: the event needs to say no more than which.
  returnUpdates: defineOperation(`subscription ReturnUpdates { returnUpdated { id status } }`),
  returnDetail: defineOperation(`query ReturnDetail($id: ID!) {
    return(id: $id) { ${RETURN_FIELDS} tags allowedActions totalRefund { amount currency } totalStoreCredit { amount currency }
      order { id name customer { id } submittedCustomer { name email } } externalReferenceId customerEmail
      items(includeRemoved: true) { id quantity reason outcome removedAt title sku amount { amount currency } }
      statusChanges { operation fromStatus toStatus createdAt }
      notes { id content createdAt } }
    returnTags { name } }`),
  returnTagsSet: defineOperation(`mutation ReturnTagsSet($id: ID!, $tags: [String!]!) { returnTagsSet(id: $id, tags: $tags) { id number tags } }`),
  defineReturnTag: defineOperation(`mutation DefineReturnTag($name: String!) { returnTagUpsert(name: $name, pillTheme: "NORMAL") { name } }`),
  // What processing would record, for the page that asks to confirm it.
  returnProcessPreview: defineOperation(`query ReturnProcessPreview($id: ID!, $reject: [ID!], $outcomes: [ReturnItemOutcomeInput!]) {
    return(id: $id) { id number status items { id title sku quantity outcome }
      processingPreview(rejectItemIds: $reject, outcomes: $outcomes) { refund { amount currency } storeCredit { amount currency } rejectsReturn
        items { itemId outcome rejected amount { amount currency } } } } }`),
  returnProcess: defineOperation(`mutation ReturnProcess($id: ID!) {
    returnProcess(id: $id) { id number status totalRefund { amount currency } totalStoreCredit { amount currency } } }`),
  returnItemsProcess: defineOperation(`mutation ReturnItemsProcess($id: ID!, $items: [ProcessReturnItemInput!]!) {
    returnItemsProcess(id: $id, items: $items) { id number status totalRefund { amount currency } totalStoreCredit { amount currency } } }`),
  returnFlag: defineOperation(`mutation ReturnFlag($id: ID!) { returnFlag(id: $id) { id number status } }`),
  returnReject: defineOperation(`mutation ReturnReject($id: ID!) { returnReject(id: $id) { id number status } }`),
  returnReset: defineOperation(`mutation ReturnReset($id: ID!) { returnReset(id: $id) { id number status } }`),
  returnItemsRemove: defineOperation(`mutation ReturnItemsRemove($id: ID!, $items: [ID!]!) { returnItemsRemove(id: $id, lineItemIds: $items) { id number status } }`),
  returnNoteAdd: defineOperation(`mutation ReturnNoteAdd($id: ID!, $content: String!) { returnNoteAdd(id: $id, content: $content) { id return { number status } } }`),

  orders: defineOperation(`query Orders($q: String, $after: String) {
    orders(first: 50, after: $after, query: $q) {
      nodes { ${ORDER_ROW_FIELDS} unitsOrdered fulfillmentState }
      pageInfo { hasNextPage endCursor } } }`),
  orderDetail: defineOperation(`query OrderDetail($id: ID!) {
    order(id: $id) { id name externalId placedAt currency customerPortalToken
      customer { id }
      submittedCustomer { name email }
      totalPrice { amount currency }
      lineItems { id externalId title sku quantity returnableQuantity price { amount currency } }
      fulfillments { id fulfillmentId status trackingCompany trackingNumber estimatedDeliveryDate deliveredAt createdAt
        lineItems { quantity orderLineItem { title } }
        trackingHistory { status message datetime } } } }`),

  customers: defineOperation(`query Customers($q: String, $after: String) {
    customers(first: 50, after: $after, query: $q) {
      nodes { id email name phoneNumber updatedAt ordersCount lifetimeSpend { amount currency } lastOrderAt }
      pageInfo { hasNextPage endCursor } } }`),
  customerDetail: defineOperation(`query CustomerDetail($id: ID!) {
    node(id: $id) { ... on Customer { id email name firstName lastName phoneNumber phoneNumbers customFields createdAt updatedAt
      location { street1 street2 city state stateCode postalCode country countryCode }
      subscriptions { channel kind status address changedAt } redactedAt ordersCount lifetimeSpend { amount currency } lastOrderAt } } }`),
  customerErase: defineOperation(`mutation CustomerErase($id: ID!) {
    customerErase(input: { customerId: $id }) { total counts { ${ERASURE_COUNTS} } } }`),
  storeCustomerDataErase: defineOperation(`mutation StoreCustomerDataErase($confirmStoreId: ID!) {
    storeCustomerDataErase(confirmStoreId: $confirmStoreId) { total counts { ${ERASURE_COUNTS} } } }`),
  // Customer has no orders field: its orders and returns are found by searching for its e-mail (or phones).
  customerActivity: defineOperation(`query CustomerActivity($q: String!) {
    orders(first: 50, query: $q) { nodes { ${ORDER_ROW_FIELDS} } pageInfo { hasNextPage } }
    returns(first: 50, query: $q) { nodes { ${RETURN_FIELDS} customerEmail order { submittedCustomer { email phoneNumber } } } pageInfo { hasNextPage } } }`),

  products: defineOperation(`query Products($q: String, $after: String) {
    products(first: 50, after: $after, query: $q) {
      nodes { id title sku vendor price { amount currency }
        inventoryLevels(first: 100) { nodes { available } pageInfo { hasNextPage } } }
      pageInfo { hasNextPage endCursor } } }`),
  productDetail: defineOperation(`query ProductDetail($id: ID!) {
    product(id: $id) { id title sku upc barcodes vendor tags createdAt updatedAt
      price { amount currency } cost { amount currency }
      productFamily { id title }
      options { name value }
      inventoryLevels(first: 100) {
        nodes { id quantity available committed reserved updatedAt location { id name } }
        pageInfo { hasNextPage } } } }`),

  portalFindOrder: defineOperation(`query PortalFindOrder($name: String!, $email: String!) { shopperOrder(name: $name, email: $email) { id } }`),
  portalOrder: defineOperation(`query PortalOrder($id: ID!) {
    order(id: $id) { id name lineItems { id title sku quantity returnableQuantity } } }`),
  portalReturns: defineOperation(`query PortalReturns($orderName: String!) {
    returns(first: 20, orderName: $orderName) { nodes { id status createdAt totalRefund { amount currency } totalStoreCredit { amount currency }
      items { quantity reason title } } } }`),
  portalCreateReturn: defineOperation(`mutation PortalCreateReturn($input: ReturnCreateInput!) { returnCreate(input: $input) { return { id } } }`),
};
