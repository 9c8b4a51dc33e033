// ppc64le discovery boot (issue 34): the spliced full ISO read from its /byid URL by qemu's curl
// block driver; SLOF (qemu's pseries firmware) → ppc/bootinfo.txt → GRUB's powerpc-ieee1275 core image → the kargs area of boot/grub/grub.cfg; Debian's ppc64le kernel unpacks the archive spliced into images/ignition.img; the
// real Ignition of ppc64le applies it; the guest registers with cpu.architecture ppc64le. What is checked:
// test/e2e/support/arch-boot-suite.ts. Fixture: fixtures/build-arch-iso.sh --arch ppc64le.
import { archBootSuite } from './support/arch-boot-suite.js';

archBootSuite('ppc64le');
