/** The provider recommends 5-10 selfies; more than this only slows training and bloats requests. */
export const MAX_SELFIES = 20;
