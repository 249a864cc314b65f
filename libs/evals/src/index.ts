export { failedExpectations, valueAtPath, type TrialCall, type TrialOutcome } from './expectations';
export { settleEval, type EndedTrial } from './settle';
export { benjaminiHochberg, compareVersions, fisherExactTwoSided, noiseFloor, type CaseDiff, type CaseTrials, type VersionDiff } from './significance';
