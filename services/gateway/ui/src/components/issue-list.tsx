import type { ValidationIssue } from '../types';

const pathOf = (issue: ValidationIssue) => (issue.path.length > 0 ? issue.path.join('.') : '(spec)');

/** The API's VALIDATION_FAILED issues, each at its path. */
export function IssueList({ issues, testId }: { issues: ValidationIssue[]; testId: string }) {
  if (issues.length === 0) return null;
  return (
    <ul role="alert" className="issues" data-testid={testId}>
      {issues.map((issue, index) => (
        <li key={index}>
          <code className="issue-path">{pathOf(issue)}</code>: {issue.message}
        </li>
      ))}
    </ul>
  );
}
