export { isUsernameTaken } from './services/register.js';
export { signInsPerDay, type SignInDay } from './services/sign-ins.js';
