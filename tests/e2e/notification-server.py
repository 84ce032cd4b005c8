#!/usr/bin/python3
"""A test notification server for the private session bus of the desktop e2e test.

Owns org.freedesktop.Notifications, answers like a desktop's server, and appends every Notify
call as one JSON line ({"id", "app_name", "summary", "body", "actions"}) to the file named by
the first argument, so the test can assert what the app showed. Uses Debian's python3-gi.
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
    node = Gio.DBusNodeInfo.new_for_xml(INTROSPECTION)
    next_id = [0]

    def on_call(_conn, _sender, _path, _iface, method, params, invocation):
        if method == "Notify":
            app_name, _replaces, _icon, summary, body, actions, _hints, _timeout = params.unpack()
            next_id[0] += 1
            record = {
                "id": next_id[0],
                "app_name": app_name,
                "summary": summary,
                "body": body,
                "actions": list(actions),
            }
            with open(record_path, "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            invocation.return_value(GLib.Variant("(u)", (next_id[0],)))
        elif method == "CloseNotification":
            invocation.return_value(None)
        elif method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (["actions", "body"],)))
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
