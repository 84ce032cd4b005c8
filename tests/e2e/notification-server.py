#!/usr/bin/python3
"""A test notification server for the private session bus of the desktop e2e test.

Owns org.freedesktop.Notifications, answers like a desktop's server, and appends every call
that changes what is on screen as one JSON line to the file named by the first argument, so
the test can assert what the app showed and withdrew:

  Notify             {"id", "app_name", "replaces_id", "summary", "body", "actions", "sound"}
                     ("sound": the sound-name hint, null without one)
  CloseNotification  {"closed": id}   (and emits NotificationClosed(id, 3), as servers do)

GetCapabilities lists "body-markup", so the app must escape the text it puts in bodies.
`--no-actions` leaves "actions" out of GetCapabilities: a server that cannot show buttons.
Action presses are not simulated here; the test emits ActionInvoked with gdbus. Uses Debian's
python3-gi.
"""

import json
import sys

from gi.repository import Gio, GLib

INTROSPECTION = """
<node>
  <interface name="org.freedesktop.Notifications">
    <method name="Notify">
      <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
      <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/>
      <arg type="u" direction="out"/>
    </method>
    <method name="CloseNotification"><arg type="u" direction="in"/></method>
    <method name="GetCapabilities"><arg type="as" direction="out"/></method>
    <method name="GetServerInformation">
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
    </method>
    <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
    <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
  </interface>
</node>
"""


def main() -> None:
    record_path = sys.argv[1]
    # "body-markup" as GNOME's and KDE's servers say: the app must escape agent text.
    capabilities = ["body", "body-markup"]
    if "--no-actions" not in sys.argv[2:]:
        capabilities.insert(0, "actions")
    node = Gio.DBusNodeInfo.new_for_xml(INTROSPECTION)
    # Ids continue after the ones already in the file, so a restarted server never reuses one.
    next_id = [0]
    try:
        with open(record_path, encoding="utf-8") as existing:
            for line in existing:
                if line.strip():
                    next_id[0] = max(next_id[0], json.loads(line).get("id", 0))
    except FileNotFoundError:
        pass

    def record(entry):
        with open(record_path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    def on_call(conn, _sender, _path, _iface, method, params, invocation):
        if method == "Notify":
            app_name, replaces, _icon, summary, body, actions, hints, _timeout = params.unpack()
            next_id[0] += 1
            record({
                "id": next_id[0],
                "app_name": app_name,
                "replaces_id": replaces,
                "summary": summary,
                "body": body,
                "actions": list(actions),
                "sound": hints.get("sound-name"),
            })
            invocation.return_value(GLib.Variant("(u)", (next_id[0],)))
        elif method == "CloseNotification":
            (closed,) = params.unpack()
            record({"closed": closed})
            invocation.return_value(None)
            # 3: closed by a call to CloseNotification.
            conn.emit_signal(
                None,
                "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications",
                "NotificationClosed",
                GLib.Variant("(uu)", (closed, 3)),
            )
        elif method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (capabilities,)))
        elif method == "GetServerInformation":
            invocation.return_value(GLib.Variant("(ssss)", ("herald-test", "herald", "1.0", "1.2")))
        else:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)

    def on_bus(conn, _name):
        conn.register_object("/org/freedesktop/Notifications", node.interfaces[0], on_call, None, None)

    loop = GLib.MainLoop()
    Gio.bus_own_name(
        Gio.BusType.SESSION,
        "org.freedesktop.Notifications",
        Gio.BusNameOwnerFlags.NONE,
        on_bus,
        None,
        lambda *_: loop.quit(),
    )
    loop.run()


if __name__ == "__main__":
    main()
