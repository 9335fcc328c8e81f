/**
 * Indexes of the item table, shared by both dialects' migrations: each names
 * the query it serves. Every secondary index also carries the primary key
 * (InnoDB appends it; SQLite stores the rowid), so ORDER BY <column>, partNo
 * (the pagination tiebreak) walks the index without a sort.
 */
export const ITEM_INDEXES: Array<{ name: string; columns: string[]; unique?: boolean; serves: string }> = [
  { name: 'UQ_item_shortIdKey', columns: ['shortIdKey'], unique: true, serves: 'GET /Item?key=&type=id, PUT /Item, DELETE /Item/<shortID>, duplicate check; /Item/All ordered by shortID' },
  { name: 'IX_item_active_shortIdKey', columns: ['discontinued', 'shortIdKey'], serves: 'GET /Item (not discontinued) ordered by shortID, the default' },
  { name: 'IX_item_active_description', columns: ['discontinued', 'description'], serves: 'GET /Item sort=description' },
  { name: 'IX_item_active_category', columns: ['discontinued', 'category'], serves: 'GET /Item sort=category' },
  { name: 'IX_item_active_subCategory', columns: ['discontinued', 'subCategory'], serves: 'GET /Item sort=subCategory' },
  { name: 'IX_item_active_created', columns: ['discontinued', 'created'], serves: 'GET /Item sort=created' },
  { name: 'IX_item_active_modified', columns: ['discontinued', 'modified'], serves: 'GET /Item sort=modified, and modifiedSince on it' },
  { name: 'IX_item_description', columns: ['description'], serves: 'GET /Item/All sort=description' },
  { name: 'IX_item_category_active_shortIdKey', columns: ['category', 'discontinued', 'shortIdKey'], serves: 'GET /Item?Category= (flat, by shortID)' },
  { name: 'IX_item_subCategory', columns: ['subCategory'], serves: 'GET /Item/All sort=subCategory' },
  { name: 'IX_item_created', columns: ['created'], serves: 'GET /Item/All sort=created' },
  { name: 'IX_item_modified', columns: ['modified'], serves: 'GET /Item/All sort=modified, and modifiedSince on it' },
];
