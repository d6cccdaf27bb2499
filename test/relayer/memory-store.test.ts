import { createMemoryStore } from '../../src/relayer/store/memory-store.js';
import { storeContract } from './store-contract.js';

storeContract('memory store', async () => createMemoryStore());
