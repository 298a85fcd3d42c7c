// Products and a product's stock per location.
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { formatDate, html, money, type Html } from '../html.ts';
import { objectHistory } from './history.ts';
import { ops } from '../operations.ts';
import { failureOf, notFound, searchListView, searchPage, view, type DashboardRequest } from './kit.ts';


interface ProductRow {
  id: string;
  title: string;
  sku: string | null;
  vendor: string | null;
  price: { amount: string; currency: string } | null;
  inventoryLevels: { nodes: { available: number }[]; pageInfo: { hasNextPage: boolean } };
}

/** What is available to sell across the product's locations; negative when it is oversold. */
function totalAvailable(levels: ProductRow['inventoryLevels']): Html {
  if (levels.nodes.length === 0) return html`<span title="No stock at any location">—</span>`;
  const total = levels.nodes.reduce((sum, level) => sum + level.available, 0);
  const shown = `${total}${levels.pageInfo.hasNextPage ? '+' : ''}`;
  return total < 0 ? html`<strong class="oversold">${shown} (oversold)</strong>` : html`${shown}`;
}

export async function productsPage(req: DashboardRequest): Promise<DoorResponse> {
  const q = req.query.get('q') ?? '';
  const result = await searchPage<ProductRow>(req, 'products', ops.products, { q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Products',
    path: '/admin/products',
    exportPath: '/admin/exports/products',
    what: 'products',
    q,
    hint: 'Words match the title, SKU, UPC and barcodes, vendor, tags and option values.',
    fields: ['title:', 'sku:', 'barcode:', 'vendor:', 'option:blue', 'tag:', 'price:<20', 'created_at:>=2026-11-01'],
    columns: ['Title', 'SKU', 'Vendor', 'Price', 'Available'],
    cells: (p) => [html`<a href="/admin/products/${p.id}">${p.title}</a>`, html`${p.sku ?? ''}`, html`${p.vendor ?? ''}`, html`${money(p.price)}`, totalAvailable(p.inventoryLevels)],
  });
}

export interface ProductDetail {
  id: string;
  title: string;
  sku: string | null;
  upc: string | null;
  barcodes: string[];
  vendor: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  price: { amount: string; currency: string } | null;
  cost: { amount: string; currency: string } | null;
  productFamily: { id: string; title: string } | null;
  options: { name: string; value: string }[];
  inventoryLevels: {
    nodes: { id: string; quantity: number; available: number; committed: number; reserved: number; updatedAt: string; location: { id: string; name: string } | null }[];
    pageInfo: { hasNextPage: boolean };
  };
}

export async function productPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const found = await runOperation<{ product: ProductDetail | null }>(ops.productDetail, { id }, req.ctx);
  if (!found.ok) {
    if (found.error.code === 'BAD_USER_INPUT' || found.error.code === 'NOT_FOUND') return notFound(req);
    throw failureOf(found.error);
  }
  const product = found.data.product;
  if (!product) return notFound(req);
  const levels = product.inventoryLevels.nodes;
  const sum = (key: 'quantity' | 'available' | 'committed' | 'reserved') => levels.reduce((total, level) => total + level[key], 0);
  const available = (n: number) => (n < 0 ? html`<strong>${n}</strong> oversold` : html`${n}`);
  const stock = levels.map(
    (l) => html`<tr${l.available < 0 ? html` class="oversold"` : ''} data-level-id="${l.id}"><td>${l.location?.name ?? 'a location this store cannot see'}</td><td class="num">${l.quantity}</td><td class="num">${available(l.available)}</td><td class="num">${l.committed}</td><td class="num">${l.reserved}</td><td>${formatDate(l.updatedAt)}</td></tr>`,
  );
  return view(
    req,
    200,
    product.title,
    html`<section class="card"><p><strong>SKU</strong> ${product.sku ?? 'none'} · <strong>Vendor</strong> ${product.vendor ?? 'none'}</p>
<p><strong>Price</strong> ${money(product.price) || 'not set'} · <strong>Cost</strong> ${money(product.cost) || 'not set'}</p>
<p><strong>UPC</strong> ${product.upc ?? 'none'} · <strong>Barcodes</strong> ${product.barcodes.join(', ') || 'none'}</p>
${product.productFamily ? html`<p><strong>Variant of</strong> ${product.productFamily.title}</p>` : ''}
<p><strong>Tags</strong> ${product.tags.join(', ') || 'none'}</p>
<p><strong>Created</strong> ${formatDate(product.createdAt)} · <strong>Updated</strong> ${formatDate(product.updatedAt)}</p></section>
<h2>Options</h2>
${product.options.length > 0
  ? html`<div class="table" role="region" aria-label="Options" tabindex="0"><table id="product-options"><thead><tr><th>Option</th><th>Value</th></tr></thead><tbody>${product.options.map((o) => html`<tr><td>${o.name}</td><td>${o.value}</td></tr>`)}</tbody></table></div>`
  : html`<p>No options: a standalone product.</p>`}
<h2>Stock per location</h2>
${levels.length > 0
  ? html`<div class="table" role="region" aria-label="Stock per location" tabindex="0"><table id="product-stock"><thead><tr><th>Location</th><th class="num">Quantity</th><th class="num">Available</th><th class="num">Committed</th><th class="num">Reserved</th><th>Changed</th></tr></thead>
<tbody>${stock}</tbody>
<tfoot><tr${sum('available') < 0 ? html` class="oversold"` : ''}><th scope="row">All locations${product.inventoryLevels.pageInfo.hasNextPage ? ' (first 100)' : ''}</th><td class="num">${sum('quantity')}</td><td class="num">${available(sum('available'))}</td><td class="num">${sum('committed')}</td><td class="num">${sum('reserved')}</td><td></td></tr></tfoot></table></div>
<p class="hint">Available is quantity less committed and reserved; below zero, orders committed more than is on hand.</p>`
  : html`<p>No stock at any location.</p>`}
${await objectHistory(req, `/admin/products/${encodeURIComponent(product.id)}`, 'PRODUCT', product.id)}`,
  );
}
