export { benjaminiHochberg, compareVersions, fisherExactTwoSided, noiseFloor, type CaseDiff, type CaseTrials, type VersionDiff } from './significance';
