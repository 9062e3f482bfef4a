export {
  createProviderActivities,
  type ProviderActivities,
  type ActivityDependencies,
} from './provider-activities';
export {
  createCallbackActivities,
  type CallbackActivities,
  type CallbackDependencies,
} from './callback-activities';
