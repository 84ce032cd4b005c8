#!/usr/bin/python3
"""A StatusNotifierItem host for the private session bus of the desktop e2e test.

  tray-host.py serve RECORD   owns org.kde.StatusNotifierWatcher, as a desktop's panel does,
                              and appends {"registered": service, "sender": unique name} to
                              RECORD for every RegisterStatusNotifierItem call
  tray-host.py show SERVICE   prints the item's ToolTip title and the labels of its menu (one
                              JSON object: {"tooltip", "title", "status", "labels"})
  tray-host.py click SERVICE LABEL
                              presses the menu entry labelled LABEL (submenus searched too)
                              through com.canonical.dbusmenu.Event, as a panel does on a click

SERVICE is what the app registered: a bus name (the item at /StatusNotifierItem) or
"name/path". Uses Debian's python3-gi.
"""

import json
import sys

from gi.repository import Gio, GLib

WATCHER = """
<node>
  <interface name="org.kde.StatusNotifierWatcher">
    <method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
    <method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
</node>
"""


def serve(record_path: str) -> None:
    node = Gio.DBusNodeInfo.new_for_xml(WATCHER)
    items = []

    def on_call(conn, sender, _path, _iface, method, params, invocation):
        if method == "RegisterStatusNotifierItem":
            (service,) = params.unpack()
            # A bare path means "my unique name, this path" (as some implementations send).
            full = f"{sender}{service}" if service.startswith("/") else service
            items.append(full)
            with open(record_path, "a", encoding="utf-8") as out:
                out.write(json.dumps({"registered": full, "sender": sender}) + "\n")
            invocation.return_value(None)
            conn.emit_signal(None, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher",
                             "StatusNotifierItemRegistered", GLib.Variant("(s)", (full,)))
        elif method == "RegisterStatusNotifierHost":
            invocation.return_value(None)
        else:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)

    def on_get(_conn, _sender, _path, _iface, prop):
        if prop == "RegisteredStatusNotifierItems":
            return GLib.Variant("as", items)
        if prop == "IsStatusNotifierHostRegistered":
            return GLib.Variant("b", True)
        if prop == "ProtocolVersion":
            return GLib.Variant("i", 0)
        return None

    def on_bus(conn, _name):
        conn.register_object("/StatusNotifierWatcher", node.interfaces[0], on_call, on_get, None)

    loop = GLib.MainLoop()
    Gio.bus_own_name(Gio.BusType.SESSION, "org.kde.StatusNotifierWatcher", Gio.BusNameOwnerFlags.NONE,
                     on_bus, None, lambda *_: loop.quit())
    loop.run()


def split(service: str):
    if "/" in service:
        name, _, path = service.partition("/")
        return name, "/" + path
    return service, "/StatusNotifierItem"


def get(bus, name, path, iface, prop):
    reply = bus.call_sync(name, path, "org.freedesktop.DBus.Properties", "Get",
                          GLib.Variant("(ss)", (iface, prop)), GLib.VariantType("(v)"),
                          Gio.DBusCallFlags.NONE, 5000, None)
    return reply.unpack()[0]


def layout(bus, name, menu_path):
    reply = bus.call_sync(name, menu_path, "com.canonical.dbusmenu", "GetLayout",
                          GLib.Variant("(iias)", (0, -1, [])), None, Gio.DBusCallFlags.NONE, 5000, None)
    _revision, root = reply.unpack()
    return root


def entries(node):
    """(id, label, enabled) of every entry under `node`, depth first."""
    _id, _props, children = node
    for child in children:
        cid, props, _kids = child
        label = props.get("label", "")
        if props.get("type") != "separator":
            yield cid, label, props.get("enabled", True)
        yield from entries(child)


def show(service: str) -> None:
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    name, path = split(service)
    iface = "org.kde.StatusNotifierItem"
    tooltip = get(bus, name, path, iface, "ToolTip")
    menu_path = get(bus, name, path, iface, "Menu")
    labels = [label for _id, label, _enabled in entries(layout(bus, name, menu_path))]
    print(json.dumps({
        "tooltip": tooltip[3],
        "tooltip_title": tooltip[2],
        "title": get(bus, name, path, iface, "Title"),
        "status": get(bus, name, path, iface, "Status"),
        "labels": labels,
    }))


def click(service: str, wanted: str) -> int:
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    name, path = split(service)
    menu_path = get(bus, name, path, "org.kde.StatusNotifierItem", "Menu")
    for cid, label, enabled in entries(layout(bus, name, menu_path)):
        if label.replace("_", "") == wanted and enabled:
            try:
                bus.call_sync(name, menu_path, "com.canonical.dbusmenu", "Event",
                              GLib.Variant("(isvu)", (cid, "clicked", GLib.Variant("i", 0), 0)),
                              None, Gio.DBusCallFlags.NONE, 5000, None)
            except GLib.Error as error:
                # An entry like Quit may end the app before its reply leaves; a
                # panel does not wait for one either. The caller checks the effect.
                if "NoReply" not in str(error) and "disconnected" not in str(error):
                    raise
            return 0
    print(f"tray-host: no enabled entry {wanted!r}", file=sys.stderr)
    return 1


def main() -> int:
    command = sys.argv[1]
    if command == "serve":
        serve(sys.argv[2])
        return 0
    if command == "show":
        show(sys.argv[2])
        return 0
    if command == "click":
        return click(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
