import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { whenUnauthorized } from './api';
import { CampaignPage } from './pages/campaign-page';
import { CampaignsPage } from './pages/campaigns-page';
import { GeneratePage } from './pages/generate-page';
import { ModelsPage } from './pages/models-page';
import { NewRunPage } from './pages/new-run-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { SignInPage } from './pages/sign-in-page';
import { SubjectsPage } from './pages/subjects-page';
import { Navigation } from './parts/navigation';
import { useRoute, type Route } from './router';
import { forgetToken, savedToken } from './session';

function Page({ route }: { route: Route }) {
  const [section = 'runs', id, action] = route.path;
  if (section === 'runs' && id) return <RunPage workflowId={id} />;
  if (section === 'new') return <NewRunPage />;
  if (section === 'models' && id && action === 'generate') return <GeneratePage modelId={Number(id)} />;
  if (section === 'models') return <ModelsPage />;
  if (section === 'campaigns' && id) return <CampaignPage campaignId={id} />;
  if (section === 'campaigns') return <CampaignsPage />;
  if (section === 'subjects') return <SubjectsPage />;
  return <RunsPage query={route.query} />;
}

function Console() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => savedToken() !== undefined);
  useEffect(() => whenUnauthorized(() => setSignedIn(false)), []);
  // Each page's heading takes the focus, so keyboard and screen-reader users land on the new page.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.path.join('/'), signedIn]);
  if (!signedIn) return <SignInPage onSignedIn={() => setSignedIn(true)} />;
  const signOut = () => {
    forgetToken();
    setSignedIn(false);
  };
  return (
    <>
      <Navigation current={route.path[0] ?? 'runs'} onSignOut={signOut} />
      <main id="main">
        <Page route={route} />
      </main>
    </>
  );
}

render(<Console />, document.getElementById('console')!);
