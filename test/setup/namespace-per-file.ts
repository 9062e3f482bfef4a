import { takeNamespace } from './namespace-pool';
import { TEST_ENV } from '../helpers/test-env-vars';

// Runs before the test file is loaded (so before its describe bodies read the namespace): moves the
// file onto a namespace of its own (see namespace-pool.ts); the next file sets its own.
const namespace = takeNamespace();
if (namespace) process.env[TEST_ENV.namespace] = namespace;
