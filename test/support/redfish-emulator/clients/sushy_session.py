# Logs in to an emulated BMC with sushy (python3-sushy) the way Ironic does by default (SessionOrBasicAuth:
# a Redfish session, Basic only when no session can be made), reads the System, optionally tries the
# one-time boot override on the System, lists the sessions, then closes the session (DELETE).
# Prints one JSON line: what it saw, or the sushy exception (class, HTTP status, Redfish code, message).
#
#   /usr/bin/python3 sushy_session.py '{"base_url": ..., "username": ..., "password": ..., "verify": <ca file>,
#                                       "boot_override": true|false}'
import json
import logging
import sys

import sushy
from sushy import exceptions

logging.basicConfig(level=logging.CRITICAL)
args = json.loads(sys.argv[1])
out = {}


def error_of(e):
    return {"class": type(e).__name__, "status": getattr(e, "status_code", None),
            "code": getattr(e, "code", None), "message": str(e)[:400]}


conn = None
try:
    conn = sushy.Sushy(args["base_url"], username=args["username"], password=args["password"],
                       verify=args["verify"])
    system = conn.get_system()
    out["power"] = str(system.power_state.value if system.power_state else None)
    out["session"] = conn._auth.can_refresh_session()
    out["sessions_listed"] = len(conn.get_session_service().sessions.get_members())
    if args.get("boot_override"):
        try:
            system.set_system_boot_options(sushy.BootSource.CD, enabled=sushy.BootSourceOverrideEnabled.ONCE)
            out["boot_override"] = "ok"
        except exceptions.SushyError as e:
            out["boot_override"] = error_of(e)
    out["ok"] = True
except exceptions.SushyError as e:
    out["ok"] = False
    out["error"] = error_of(e)
finally:
    if conn is not None:
        try:
            conn._auth.close()
        except Exception:  # noqa: BLE001 - the result line must still be printed
            pass
print(json.dumps(out))
