import { chosenUserType, type PortalUser } from '../session.js';

/** Buyer or supplier as chosen at sign-in (docs/product.md §6), else as the account says. */
export function isBuyer(user: PortalUser): boolean {
  return (chosenUserType() ?? user.userType) === 1;
}
