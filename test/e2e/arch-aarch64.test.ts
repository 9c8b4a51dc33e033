// aarch64 discovery boot (issue 34): the spliced full ISO read from its /byid URL by qemu's curl
// block driver; AAVMF (qemu-efi-aarch64) → Debian's signed CD GRUB from images/efiboot.img → the kargs area of EFI/fedora/grub.cfg; Debian's aarch64 kernel unpacks the archive spliced into images/ignition.img; the
// real Ignition of aarch64 applies it; the guest registers with cpu.architecture aarch64. What is checked:
// test/e2e/support/arch-boot-suite.ts. Fixture: fixtures/build-arch-iso.sh --arch aarch64.
import { archBootSuite } from './support/arch-boot-suite.js';

archBootSuite('aarch64');
