export {
  createProviderActivities,
  type ProviderActivities,
  type ActivityDependencies,
} from './provider-activities';
