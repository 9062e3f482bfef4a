import { z } from 'zod';

/** Response shapes of the provider read routes (models and orders), used to serialize and to document. */
const providerStatus = z
  .string()
  .describe(
    'CREATED, STARTED, IN_PROGRESS, DONE or ERROR (a status the provider invents is passed on as sent)',
  );

const common = {
  status: providerStatus,
  gender: z
    .union([z.literal(1), z.literal(2)])
    .optional()
    .describe('1 woman, 2 man'),
  styles: z.array(z.number()).optional(),
  createdAt: z.string().optional(),
  message: z.string().optional().describe('The provider\u2019s message, e.g. why it ended in ERROR'),
};

export const modelSummarySchema = z
  .object({
    modelId: z.number().describe('The provider\u2019s id of the model (an order with parent 0)'),
    ...common,
  })
  .meta({ id: 'Model' });

export const orderSummarySchema = z
  .object({
    orderId: z.number(),
    modelId: z.number().describe('The model this order generates under (0 when the order is a model itself)'),
    ...common,
  })
  .meta({ id: 'Order' });

export const modelListSchema = z.object({ models: z.array(modelSummarySchema) }).meta({ id: 'Models' });

export const modelDetailSchema = z
  .object({
    modelId: z.number(),
    ...common,
    orders: z.array(orderSummarySchema).describe('Generation orders under the model, newest first'),
  })
  .meta({ id: 'ModelDetail' });

export const orderListSchema = z.object({ orders: z.array(orderSummarySchema) }).meta({ id: 'Orders' });

/** Path and query ids are provider order ids: positive integers. */
export const providerIdSchema = z.coerce
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .positive('must be a positive integer');

export const modelIdParamsSchema = z.object({
  modelId: providerIdSchema.describe('The provider\u2019s model id'),
});

export const ordersQuerySchema = z.object({
  modelId: providerIdSchema.optional().describe('Only the generation orders under this model'),
});
