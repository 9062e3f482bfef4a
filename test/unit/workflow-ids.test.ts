import { generationWorkflowId, trainingWorkflowId } from '@avatar-pipeline/client/client/model-runs';
import { retryWorkflowId } from '@avatar-pipeline/client/client/retry-plan';
import { pipelineWorkflowId } from '@avatar-pipeline/client/client/pipelines';
import { campaignIdSchema } from '@avatar-pipeline/client/contracts/campaign/campaign';
import { subjectWorkflowId } from '@avatar-pipeline/client/contracts/campaign/campaign-state';
import {
  claimWorkflowId,
  hasReservedPrefix,
  tenantOfWorkflowId,
  tenantWorkflowId,
} from '@avatar-pipeline/client/contracts/workflow-ids';

describe('workflow ids of tenants', () => {
  it('put the tenant first, before the id a run had without tenants', () => {
    expect(pipelineWorkflowId('acme', 'k1')).toBe('acme.avatar-pipeline-k1');
    expect(trainingWorkflowId('acme', 'k1')).toBe('acme.avatar-model-k1');
    expect(generationWorkflowId('acme', 'k1')).toBe('acme.avatar-generation-k1');
    expect(tenantWorkflowId('acme', 'spring')).toBe('acme.spring');
    // Children named after their parent inherit its tenant.
    expect(tenantOfWorkflowId(retryWorkflowId(pipelineWorkflowId('acme', 'k1'), [7]))).toBe('acme');
    expect(
      tenantOfWorkflowId(subjectWorkflowId(tenantWorkflowId('acme', 'spring'), { subjectId: 'u-1' })),
    ).toBe('acme');
  });

  it('never give two (tenant, key) pairs one id, of any kind, dashes in tenant ids and keys included', () => {
    const tenants = ['a', 'a-b', 'b', 'default', 'avatar-pipeline-a', 'a-avatar-pipeline'];
    const keys = ['b', 'b-c', 'c', 'a-b', 'b.c', 'a.b', 'x/y', 'avatar-pipeline-b', ''];
    const seen = new Map<string, string>();
    for (const tenant of tenants) {
      for (const key of keys) {
        for (const id of [
          pipelineWorkflowId(tenant, key),
          trainingWorkflowId(tenant, key),
          generationWorkflowId(tenant, key),
          // Campaign ids are whole caller-chosen names: only those the schema accepts.
          ...(campaignIdSchema.safeParse(key).success ? [tenantWorkflowId(tenant, key)] : []),
        ]) {
          const pair = `${tenant} | ${key}`;
          expect(seen.get(id) ?? pair).toBe(pair);
          seen.set(id, pair);
          expect(tenantOfWorkflowId(id)).toBe(tenant);
        }
      }
    }
  });

  it('refuse a tenant id that could hide a separator or another tenant', () => {
    for (const bad of ['', 'a.b', 'a/b', 'A', 'a:b', 'a b', 'x'.repeat(41)]) {
      expect(() => tenantWorkflowId(bad, 'k')).toThrow(/invalid tenant id/);
    }
  });

  it('keep the reserved prefixes for the caller-chosen part, and claims belong to no tenant', () => {
    // A campaign named like a pipeline of the same tenant would squat that pipeline's id.
    expect(campaignIdSchema.safeParse('avatar-pipeline-k1').success).toBe(false);
    expect(campaignIdSchema.safeParse('Provider-Claim:x').success).toBe(false);
    // A campaign id of tenant `a` that looks like another tenant's id is still tenant `a`'s.
    expect(tenantOfWorkflowId(tenantWorkflowId('a', 'b.spring'))).toBe('a');
    expect(hasReservedPrefix('avatar-generation-1')).toBe(true);
    // A tenant named like the claim prefix still cannot make a claim's id.
    expect(tenantWorkflowId('provider-claim', 'x:model:1')).not.toBe(claimWorkflowId('x', 1));
    expect(tenantOfWorkflowId(claimWorkflowId('sim.example:443', 1001))).toBeUndefined();
    expect(tenantOfWorkflowId(`${claimWorkflowId('sim.example:443', 1001)}/1`)).toBeUndefined();
  });
});
