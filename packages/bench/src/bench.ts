/** `npm run bench`: runs the scenarios registered in `scenarios.ts` (see `runner.ts`). */
import { runBench } from './runner.js';
import './scenarios.js';

await runBench(process.argv.slice(2));
