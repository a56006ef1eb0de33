/** Role codes the product relies on (docs/product.md §3, §5): seeded, granted on registration, checked by the policy. */
export const ADMIN_ROLE = 'ROLE_ADMIN';
export const TOURIST_ROLE = 'ROLE_SYS_TOURIST';
export const BUYER_ROLE = 'ROLE_SYS_BUYER';
export const SUPPLIER_ROLE = 'ROLE_SYS_SUPPLIER';
/** A buyer's sub-account: shown by the organisation's name (CurrentUser.zname). */
export const BUYER_SUB_ACCOUNT_ROLE = 'ROLE_SYS_BUYER_SUB';
