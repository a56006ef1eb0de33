/** The designer's helpers shared with the generated screens (entity/DesignedLayout.tsx). */
export { hiddenFields, titleIn } from '../../../entity/DesignedLayout.js';
