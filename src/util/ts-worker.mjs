// The entry of every worker thread that runs our TypeScript. Node 20 before 22.2 ignores loader
// flags in a Worker's execArgv (nodejs/node#47747), so this plain-JS file registers tsx in the
// thread itself, then loads the module named in workerData.tsModule and hands on its default
// export (the function piscina calls with each task). See tsWorker() in ts-runtime.ts.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const loaded = await import(workerData.tsModule);

export default loaded.default;
