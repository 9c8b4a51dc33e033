// The port board (./port-board.ts) holds each wing to what its module declares: it takes only the
// ports it needs, once a wing before it offered them; it offers only its own, which no other wing
// offers; remote mode swaps implementations in; a port looked up when called finds a later offer.
import { describe, expect, it } from 'vitest';
import type { ArtifactObserver } from '../image-ports/boot-event-observer.js';
import { PortBoard } from './port-board.js';
import type { WingModule } from './wing.js';

const wing = (name: string, needs: WingModule['needs'], offers: WingModule['offers']): WingModule => ({
  name,
  needs,
  offers,
  prepare: () => Promise.resolve(() => Promise.resolve({})),
});
const observer = (label: string): ArtifactObserver & { label: string } => ({
  label,
  artifactRequested: () => undefined,
});

describe('PortBoard', () => {
  it('hands a needed port offered before, and finds one offered later when it is called', () => {
    const board = new PortBoard();
    const core = board.of(wing('core', {}, { ports: ['bootEvents'] }));
    const face = board.of(
      wing('face', { ports: ['bootEvents'], ifOffered: ['infraEnvChanged'] }, { ports: ['infraEnvChanged'] }),
    );
    expect(() => face.need('bootEvents')).toThrow('the face wing needs bootEvents, which no wing before it offers');
    const events = observer('in-process');
    core.offer({ bootEvents: events });
    expect(face.need('bootEvents')).toBe(events);
    expect(face.find('infraEnvChanged')).toBeUndefined();
    const changed = (): void => undefined;
    face.offer({ infraEnvChanged: changed });
    expect(face.find('infraEnvChanged')).toBe(changed);
    expect(board.read('bootEvents')).toBe(events);
  });

  it('refuses a port a wing did not declare, and a port offered by two wings', () => {
    const board = new PortBoard();
    const core = board.of(wing('core', {}, { ports: ['bootEvents'] }));
    const bmc = board.of(wing('bmc', { ports: ['coreDomain'] }, { ports: ['tokenReads'] }));
    expect(() => bmc.need('adminGate')).toThrow('the bmc wing uses adminGate without declaring it in needs.ports');
    expect(() => bmc.find('urlTokens')).toThrow('the bmc wing uses urlTokens without declaring it in needs');
    expect(() => bmc.offer({ bootEvents: observer('x') })).toThrow(
      'the bmc wing uses bootEvents without declaring it in offers.ports',
    );
    core.offer({ bootEvents: observer('first') });
    const again = board.of(wing('again', {}, { ports: ['bootEvents'] }));
    expect(() => again.offer({ bootEvents: observer('second') })).toThrow(
      'the again wing offers bootEvents, which the core wing offers',
    );
  });

  it('swaps in remote implementations only where the wing declares swaps', () => {
    const board = new PortBoard();
    board.of(wing('core', {}, { ports: ['bootEvents'] })).offer({ bootEvents: observer('in-process') });
    const remote = board.of(wing('remote', {}, { swaps: ['bootEvents'] }));
    const logged = observer('logged');
    remote.swap({ bootEvents: logged });
    expect(board.read('bootEvents')).toBe(logged);
    expect(() => board.of(wing('other', {}, {})).swap({ bootEvents: logged })).toThrow('declaring it in offers.swaps');
  });
});
