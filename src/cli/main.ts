import { buildProgram } from './program';
import { runProgram } from './run-program';

void runProgram(buildProgram(process.argv), process.argv);
