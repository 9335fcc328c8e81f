/** The SecurityIDs of spec "Permissions and scope per action". */
export enum SecurityId {
  /** Item Master List: list lots and stock levels, list and get items. */
  ItemMasterList = 11,
  /** Locate/Move Units: POST /Inventory/Move, /Hold and /Release. */
  LocateMoveUnits = 15,
  /** Negative Adjustment: POST /Inventory/Issue. */
  NegativeAdjustment = 88,
  /** Positive Adjustment: POST /Inventory/Receive. */
  PositiveAdjustment = 95,
  /** Create/Modify Item Master Record: create, update, discontinue items. */
  ModifyItemMaster = 116,
}

export const SECURITY_ID_NAMES: Record<SecurityId, string> = {
  [SecurityId.ItemMasterList]: 'Item Master List',
  [SecurityId.LocateMoveUnits]: 'Locate/Move Units',
  [SecurityId.NegativeAdjustment]: 'Negative Adjustment',
  [SecurityId.PositiveAdjustment]: 'Positive Adjustment',
  [SecurityId.ModifyItemMaster]: 'Create/Modify Item Master Record',
};

/** Every SecurityID but Item Master List changes data, so a read-only account may not use it. */
export function isWrite(id: SecurityId): boolean {
  return id !== SecurityId.ItemMasterList;
}

export const ALL_SECURITY_IDS = Object.values(SecurityId).filter((v): v is SecurityId => typeof v === 'number');

export function isSecurityId(value: number): value is SecurityId {
  return (ALL_SECURITY_IDS as number[]).includes(value);
}
