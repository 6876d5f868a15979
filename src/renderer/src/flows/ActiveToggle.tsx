import { useState } from 'react';
import { errorText } from '../api/http.ts';
import { flowsApi, type FlowSummary } from '../api/flows.ts';

interface ActiveToggleProps {
  flow: FlowSummary;
  onChanged: (flow: FlowSummary) => void;
  onError: (message: string) => void;
}

/** A switch for `active`: while off, messaging triggers do not fire (manual runs still work). */
export function ActiveToggle({ flow, onChanged, onError }: ActiveToggleProps) {
  const [busy, setBusy] = useState(false);
  const toggle = async (): Promise<void> => {
    setBusy(true);
    try {
      onChanged(await flowsApi.updateFlow(flow.id, { active: !flow.active }));
    } catch (e) {
      onError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" role="switch" aria-checked={flow.active} aria-label={`Active: ${flow.name}`} className={flow.active ? 'switch on' : 'switch'} disabled={busy} onClick={() => void toggle()}>
      <span className="switch-knob" />
    </button>
  );
}
