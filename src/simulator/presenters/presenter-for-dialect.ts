import type { ResolvedSimulatorOptions } from '../options';
import type { ResourceLinks } from '../resource-links';
import { createContractPresenter } from './contract-presenter';
import type { Presenter } from './presenter';
import { createVariantPresenter } from './variant-presenter';

export function presenterForDialect(
  dialect: ResolvedSimulatorOptions['dialect'],
  links: ResourceLinks,
): Presenter {
  return dialect === 'variant' ? createVariantPresenter(links) : createContractPresenter(links);
}
