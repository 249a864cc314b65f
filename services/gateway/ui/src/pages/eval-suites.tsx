import { Link } from 'wouter';
import { errorText } from '../api';
import { useSuites } from '../evals/eval-queries';
import { when } from '../format';
import { useWorkspace } from '../session';

/** The workspace's eval suites (decision 0058), each at its latest version. */
export function EvalSuitesPage() {
  const { slug, role } = useWorkspace();
  const suites = useSuites(slug);
  return (
    <section>
      <div className="page-head">
        <h1>Eval suites</h1>
        {role !== 'viewer' && (
          <Link href="/eval-suites/new" className="button-link">
            New suite
          </Link>
        )}
      </div>
      <p className="muted">
        A suite is cases — recorded facts (pick them on the <Link href="/events">events page</Link>) or hand-built ones — with what a run of each must do.
        Start an eval from an agent's page.
      </p>
      {suites.error && <p role="alert" className="error">{errorText(suites.error)}</p>}
      <div className="table-wrap">
        <table data-testid="eval-suites">
          <thead>
            <tr>
              <th>Name</th>
              <th className="c-num">Version</th>
              <th className="c-num">Cases</th>
              <th className="hide-narrow">Saved</th>
            </tr>
          </thead>
          <tbody>
            {suites.data?.map((suite) => (
              <tr key={suite.id}>
                <td>
                  <Link href={`/eval-suites/${suite.id}`}>{suite.name}</Link>
                </td>
                <td>v{suite.version}</td>
                <td>{suite.cases.length}</td>
                <td className="hide-narrow">{when(suite.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {suites.data?.length === 0 && <p className="muted">No suite yet.</p>}
      </div>
    </section>
  );
}
