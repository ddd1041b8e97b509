/**
 * The discoverer table: one row per profile section or point, each declaring the profile paths it decides and the
 * rows it reads. Adding a point of the format to discovery is adding a row (README: "Profile discovery").
 */
import type { Discoverer } from './context.js';
import { apmDiscoverer } from './discoverers/apm.js';
import { checkoutDiscoverer } from './discoverers/checkout.js';
import { limitsDiscoverer } from './discoverers/limits.js';
import { fieldLengthDiscoverer } from './discoverers/field-length.js';
import { responseFieldsDiscoverer } from './discoverers/response-fields.js';
import { notificationScheduleDiscoverer, notificationsDiscoverer } from './discoverers/notifications.js';
import { payoutDiscoverer } from './discoverers/payout.js';
import { responseDiscoverer, responseEarlyDiscoverer } from './discoverers/response.js';
import { addressDiscoverer } from './discoverers/address.js';
import { catalogueDiscoverer } from './discoverers/catalogue.js';
import { formNestedDiscoverer } from './discoverers/form-nested.js';
import { errorsDiscoverer } from './discoverers/errors.js';
import { itemsDiscoverer } from './discoverers/items.js';
import { lifecycleDiscoverer } from './discoverers/lifecycle.js';
import { paymentsDiscoverer } from './discoverers/payments.js';
import { selectionDiscoverer } from './discoverers/selection.js';
import { signatureDiscoverer } from './discoverers/signature.js';

/** Every discoverer, in no particular order (`waves` orders them by `after`). */
export const DISCOVERERS: readonly Discoverer[] = [
  signatureDiscoverer,
  errorsDiscoverer,
  paymentsDiscoverer,
  formNestedDiscoverer,
  itemsDiscoverer,
  lifecycleDiscoverer,
  selectionDiscoverer,
  addressDiscoverer,
  payoutDiscoverer,
  checkoutDiscoverer,
  limitsDiscoverer,
  fieldLengthDiscoverer,
  apmDiscoverer,
  notificationScheduleDiscoverer,
  notificationsDiscoverer,
  responseEarlyDiscoverer,
  responseDiscoverer,
  catalogueDiscoverer,
  responseFieldsDiscoverer,
];
