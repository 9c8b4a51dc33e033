# Drives an emulated BMC with sushy (python3-sushy, the library Ironic uses) the way Ironic's
# redfish-virtual-media boot does: read the System, eject CD/DVD slots holding media, insert the
# image into the first CD/DVD slot that takes it (moving on after a 400 or 405, as Ironic does),
# one-time boot override to CD, then power on or force a restart. Prints one JSON line: what it
# did, or the sushy exception (class, HTTP status, Redfish code, message).
#
#   /usr/bin/python3 sushy_boot.py '{"base_url": ..., "username": ..., "password": ..., "verify": <ca file>,
#                                    "image": <url>, "mode": "UEFI"|"Legacy", "transfer_method": null|"Stream",
#                                    "only": "system"|null, "target": "Cd"|"UefiHttp"}'
import json
import logging
import sys

import sushy
from sushy import exceptions

logging.basicConfig(level=logging.CRITICAL)
args = json.loads(sys.argv[1])
out = {"steps": []}


def step(what, **data):
    out["steps"].append(dict(what=what, **data))


try:
    conn = sushy.Sushy(args["base_url"], username=args["username"], password=args["password"],
                       verify=args["verify"])
    system = conn.get_system()
    step("system", id=system.identity, power=str(system.power_state.value if system.power_state else None),
         manufacturer=system.manufacturer, resets=sorted(v.value for v in system.get_allowed_reset_system_values()))
    if args.get("only") != "system":
        inserted = None
        managers = system.managers
        for manager in managers:
            try:
                members = manager.virtual_media.get_members()
            except exceptions.MissingAttributeError:
                step("no-virtual-media", manager=manager.identity)
                continue
            for vm in members:
                types = [t.value for t in vm.media_types]
                if "CD" not in types and "DVD" not in types:
                    continue
                if vm.inserted:
                    vm.eject_media()
                    step("eject", slot=vm.identity)
                if inserted:
                    continue
                try:
                    kwargs = {"inserted": True, "write_protected": True}
                    if args.get("transfer_method"):
                        kwargs["transfer_method"] = args["transfer_method"]
                    vm.insert_media(args["image"], **kwargs)
                    inserted = vm.identity
                    step("insert", slot=vm.identity)
                except exceptions.HTTPError as e:
                    if e.status_code in (400, 405):
                        step("skip", slot=vm.identity, status=e.status_code)
                        continue
                    raise
        if not inserted:
            raise RuntimeError("no slot took the image")
        vm_after = [m for man in managers for m in man.virtual_media.get_members() if m.identity == inserted][0]
        step("slot", slot=inserted, image=vm_after.image, inserted=vm_after.inserted)
    target = sushy.BOOT_SOURCE_TARGET_UEFI_HTTP if args.get("target") == "UefiHttp" else sushy.BOOT_SOURCE_TARGET_CD
    system.set_system_boot_options(target=target, enabled=sushy.BOOT_SOURCE_ENABLED_ONCE,
                                   mode=sushy.BOOT_SOURCE_MODE_UEFI if args.get("mode", "UEFI") == "UEFI"
                                   else sushy.BOOT_SOURCE_MODE_BIOS)
    system.refresh()
    step("boot", target=str(system.boot.target.value), enabled=str(system.boot.enabled.value))
    if system.power_state == sushy.POWER_STATE_ON:
        system.reset_system(sushy.RESET_FORCE_RESTART)
        step("reset", type="ForceRestart")
    else:
        system.reset_system(sushy.RESET_ON)
        step("reset", type="On")
    out["ok"] = True
except exceptions.HTTPError as e:
    out["ok"] = False
    out["error"] = {"class": type(e).__name__, "status": e.status_code, "code": e.code, "message": str(e)}
except exceptions.SushyError as e:
    out["ok"] = False
    out["error"] = {"class": type(e).__name__, "message": str(e)}
print(json.dumps(out))
