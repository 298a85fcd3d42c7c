// Builds the one schema every door executes against. Each type group registers
// itself with the builder on import.
import { builder } from './builder.ts';
import './scalars.ts';
import './store.ts';
import './orders.ts';
import './customers.ts';
import './customerSubscriptions.ts';
import './customEvents.ts';
import './returns.ts';
import './returnMutations.ts';
import './returnImports.ts';
import './returnTags.ts';
import './returnBulkActions.ts';
import './webhooks.ts';
import './merchant.ts';
import './catalog.ts';
import './inventory.ts';
import './purchasing.ts';
import './inbound.ts';
import './fulfillments.ts';
import './orderSync.ts';
import './productBulkUpload.ts';
import './inventoryItems.ts';
import './coverage.ts';
import './invoices.ts';
import './overview.ts';
import './storefront.ts';
import './subscriptions.ts';
import './privacy.ts';
import { nameMutations } from './audit.ts';
import { enforceConnectionArgs } from './connectionArgs.ts';
import { checkPayloadsBeforeWriting, resolveNodeIdsSynchronously } from './node.ts';

export const schema = nameMutations(checkPayloadsBeforeWriting(resolveNodeIdsSynchronously(enforceConnectionArgs(builder.toSchema({ sortSchema: false })))));
