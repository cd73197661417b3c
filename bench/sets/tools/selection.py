"""Which source pages make up the `mixed-vault` set, their tags, and the aliases we
author for some of them (an owner's own names for a note; they back `entity_alias`)."""

from __future__ import annotations


def _words(text: str) -> list[str]:
    return text.split()


# debian-handbook 11.20220922, en-US HTML: (page, tags). Chapter pages keep every
# section they hold, so several notes are long with many headings (deep facts).
HANDBOOK_PAGES: tuple[tuple[str, list[str]], ...] = (
    ("apt.html", ["apt", "packages"]),
    ("sect.apt-get.html", ["apt", "packages"]),
    ("sect.apt-cache.html", ["apt", "packages"]),
    ("sect.apt-frontends.html", ["apt", "packages"]),
    ("sect.package-authentication.html", ["apt", "security"]),
    ("sect.dist-upgrade.html", ["apt", "upgrades"]),
    ("sect.automatic-upgrades.html", ["apt", "upgrades"]),
    ("sect.regular-upgrades.html", ["apt", "upgrades"]),
    ("sect.searching-packages.html", ["apt", "packages"]),
    ("packaging-system.html", ["dpkg", "packages"]),
    ("sect.manipulating-packages-with-dpkg.html", ["dpkg", "packages"]),
    ("sect.package-meta-information.html", ["dpkg", "packages"]),
    ("sect.source-package-structure.html", ["dpkg", "packages"]),
    ("sect.coexistence-with-other-packaging-systems.html", ["dpkg", "packages"]),
    ("basic-configuration.html", ["config"]),
    ("sect.network-config.html", ["network", "config"]),
    ("sect.hostname-name-service.html", ["network", "config"]),
    ("sect.user-group-databases.html", ["users", "config"]),
    ("sect.creating-accounts.html", ["users", "config"]),
    ("sect.shell-environment.html", ["shell", "config"]),
    ("sect.config-printing.html", ["printing", "config"]),
    ("sect.config-bootloader.html", ["boot", "config"]),
    ("sect.config-misc.html", ["config"]),
    ("unix-services.html", ["services", "boot"]),
    ("sect.remote-login.html", ["ssh", "services"]),
    ("sect.rights-management.html", ["permissions", "services"]),
    ("sect.administration-interfaces.html", ["services"]),
    ("sect.syslog.html", ["logs", "services"]),
    ("sect.inetd.html", ["services"]),
    ("sect.task-scheduling-cron-atd.html", ["cron", "services"]),
    ("sect.asynchronous-task-scheduling-anacron.html", ["cron", "services"]),
    ("sect.quotas.html", ["disk", "services"]),
    ("sect.backup.html", ["backup", "services"]),
    ("sect.hotplug.html", ["hardware", "services"]),
    ("sect.power-management.html", ["power", "services"]),
    ("network-infrastructure.html", ["network", "pki"]),
    ("sect.virtual-private-network.html", ["network", "vpn"]),
    ("sect.quality-of-service.html", ["network"]),
    ("sect.ipv6.html", ["network"]),
    ("sect.domain-name-servers.html", ["network", "dns"]),
    ("sect.dhcp.html", ["network", "dhcp"]),
    ("sect.network-diagnosis-tools.html", ["network", "troubleshooting"]),
    ("network-services.html", ["mail", "server"]),
    ("sect.http-web-server.html", ["web", "server"]),
    ("sect.ftp-file-server.html", ["server"]),
    ("sect.nfs-file-server.html", ["server", "nfs"]),
    ("sect.windows-file-server-with-samba.html", ["server", "samba"]),
    ("sect.http-ftp-proxy.html", ["server", "proxy"]),
    ("sect.ldap-directory.html", ["server", "ldap"]),
    ("advanced-administration.html", ["storage", "raid", "lvm"]),
    ("sect.virtualization.html", ["virtualization"]),
    ("sect.automated-installation.html", ["installation"]),
    ("sect.monitoring.html", ["monitoring"]),
    ("security.html", ["security", "firewall"]),
    ("sect.firewall-packet-filtering.html", ["security", "firewall"]),
    ("sect.supervision.html", ["security", "monitoring"]),
    ("sect.apparmor.html", ["security"]),
    ("sect.selinux.html", ["security"]),
    ("sect.other-security-considerations.html", ["security"]),
    ("sect.dealing-with-compromised-machine.html", ["security"]),
    ("solving-problems.html", ["troubleshooting", "docs"]),
    ("sect.common-procedures.html", ["troubleshooting"]),
    ("sect.kernel-compilation.html", ["kernel"]),
    ("sect.kernel-installation.html", ["kernel"]),
    ("installation.html", ["installation"]),
    ("sect.installation-steps.html", ["installation"]),
    ("sect.after-first-boot.html", ["installation"]),
    ("sect.release-lifecycle.html", ["debian-project"]),
    ("sect.x509-cert.html", ["pki", "security"]),
    ("workstation.html", ["desktop", "x11"]),
    ("sect.graphical-desktops.html", ["desktop"]),
    ("sect.web-browsers.html", ["desktop", "web"]),
)

_HELP_SKIP_PREFIXES = ("color-", "contacts-", "wacom-")
_HELP_SKIP = {"about-this-guide", "get-involved", "help-irc", "help-mailing-list", "translate",
              "gnome-version", "gnome-classic"}
HELP_TOPICS_EN = _words(
    "a11y-bouncekeys a11y-braille a11y-contrast a11y-dwellclick a11y-font-size a11y-icon "
    "a11y-mag a11y-right-click a11y-screen-reader a11y-slowkeys a11y-stickykeys "
    "a11y-visualalert accounts-add accounts-disable-service accounts-provider-not-available "
    "accounts-remove accounts-which-application accounts-whyadd backup-check backup-frequency "
    "backup-how backup-restore backup-thinkabout backup-what backup-where "
    "bluetooth-connect-device bluetooth-device-specific-pairing bluetooth-problem-connecting "
    "bluetooth-remove-connection bluetooth-send-file bluetooth-turn-on-off bluetooth-visibility "
    "clock-calendar clock-set clock-timezone clock-world disk-benchmark disk-capacity "
    "disk-check disk-format disk-partitions disk-repair disk-resize display-blank "
    "display-brightness display-dual-monitors display-night-light files-autorun files-browse "
    "files-copy files-delete files-disc-write files-hidden files-lost files-open files-preview "
    "files-recover files-removedrive files-rename files-select files-share files-sort "
    "files-templates files-tilde hardware-cardreader hardware-driver keyboard-cursor-blink "
    "keyboard-key-menu keyboard-key-super keyboard-layouts keyboard-nav keyboard-osk "
    "keyboard-repeat-keys keyboard-shortcuts-set look-background look-display-fuzzy "
    "look-resolution mouse-doubleclick mouse-lefthanded mouse-middleclick mouse-mousekeys "
    "mouse-problem-notmoving mouse-sensitivity mouse-touchpad-click mouse-wakeup "
    "music-cantplay-drm nautilus-behavior nautilus-bookmarks-edit nautilus-connect "
    "nautilus-display nautilus-file-properties-basic nautilus-file-properties-permissions "
    "nautilus-list nautilus-preview nautilus-views net-antivirus net-default-browser "
    "net-default-email net-email-virus net-findip net-firewall-on-off net-firewall-ports "
    "net-fixed-ip-address net-macaddress net-manual net-mobile net-othersconnect net-othersedit "
    "net-proxy net-security-tips net-slow net-vpn-connect net-what-is-ip-address "
    "net-wired-connect net-wireless-adhoc net-wireless-airplane net-wireless-connect "
    "net-wireless-disconnecting net-wireless-find net-wireless-hidden net-wireless-noconnection "
    "net-wireless-troubleshooting-device-drivers net-wireless-troubleshooting-hardware-check "
    "net-wireless-troubleshooting-hardware-info net-wireless-troubleshooting-initial-check "
    "net-wireless-troubleshooting net-wireless-wepwpa net-wrongnetwork power-autobrightness "
    "power-autosuspend power-batteryestimate power-batterylife power-batteryoptimal "
    "power-batteryslow power-batterywindows power-closelid power-constantfan power-hotcomputer "
    "power-lowpower power-nowireless power-othercountry power-percentage power-profile "
    "power-status power-suspend power-suspendfail power-whydim power-willnotturnon "
    "power-wireless printing-2sided printing-booklet-duplex printing-booklet-singlesided "
    "printing-cancel-job printing-differentsize printing-inklevel printing-name-location "
    "printing-order printing-paperjam printing-select printing-setup-default-printer "
    "printing-setup printing-streaks printing-to-file privacy-history-recent-off "
    "privacy-location privacy-purge privacy-screen-lock screen-shot-record session-fingerprint "
    "session-formats session-language session-screenlocks sharing-bluetooth sharing-desktop "
    "sharing-displayname sharing-media sharing-personal shell-apps-auto-start "
    "shell-apps-favorites shell-apps-open shell-exit shell-introduction shell-keyboard-shortcuts "
    "shell-lockscreen shell-notifications shell-windows-lost shell-windows-maximize "
    "shell-windows-states shell-windows-switching shell-windows-tiled "
    "shell-workspaces-movewindow shell-workspaces-switch shell-workspaces sound-alert "
    "sound-crackle sound-nosound sound-usemic sound-usespeakers sound-volume status-icons "
    "tips-specialchars touchscreen-gestures user-add user-admin-change user-admin-explain "
    "user-admin-problems user-autologin user-changepassword user-changepicture user-delete "
    "user-goodpassword video-dvd video-sending"
)
assert not [p for p in HELP_TOPICS_EN if p.startswith(_HELP_SKIP_PREFIXES) or p in _HELP_SKIP]

_COLOR = _words("assignprofiles calibrate-camera calibrate-printer calibrate-scanner "
          "calibrate-screen calibrationcharacterization calibrationdevices calibrationtargets "
          "canshareprofiles gettingprofiles howtoimport missingvcgt notifications "
          "notspecifiededid testing whatisprofile whatisspace why-calibrate whyimportant")
# gnome-user-docs 43.0: (language dir, vault folder, pages). The translated pages are
# ones the English folder does not hold, so a multilingual query has one clear target.
HELP_PAGES: tuple[tuple[str, str, list[str]], ...] = (
    ("C", "Howto/Desktop", HELP_TOPICS_EN),
    ("de", "Hilfe/Farbe", [f"color-{p}" for p in _COLOR[0::2]]),
    ("es", "Ayuda/Color", [f"color-{p}" for p in _COLOR[1::2]]),
    ("fr", "Aide/Contacts et tablette",
     [f"contacts-{p}" for p in _words("add-remove connect edit-details link-unlink search setup")]
     + [f"wacom-{p}" for p in _words("left-handed mode multi-monitor stylus")]),
)
HELP_TAGS = {"a11y": "accessibility", "net": "network", "nautilus": "files",
             "shell": "gnome-shell", "look": "display", "user": "users",
             "tips": "keyboard", "session": "users", "music": "media", "video": "media"}

# git-doc 2.39.5: AsciiDoc texts.
GIT_PAGES: tuple[str, ...] = (
    "howto/revert-a-faulty-merge.txt", "howto/revert-branch-rebase.txt",
    "howto/recover-corrupted-blob-object.txt", "howto/recover-corrupted-object-harder.txt",
    "howto/rebase-from-internal-branch.txt", "howto/separating-topic-branches.txt",
    "howto/setup-git-server-over-http.txt", "howto/use-git-daemon.txt",
    "howto/using-merge-subtree.txt", "howto/using-signed-tag-in-pull-request.txt",
    "howto/update-hook-example.txt", "howto/keep-canonical-history-correct.txt",
    "gitfaq.txt", "gitworkflows.txt", "giteveryday.txt", "gitcredentials.txt",
    "gitignore.txt", "gitrevisions.txt", "githooks.txt",
)

# Names the owner uses for a note besides its title.
ALIASES: dict[str, list[str]] = {
    "sect.firewall-packet-filtering.html": ["netfilter", "iptables and nftables"],
    "advanced-administration.html": ["RAID and LVM", "software RAID"],
    "sect.virtualization.html": ["KVM notes", "VMs"],
    "sect.remote-login.html": ["SSH"],
    "sect.windows-file-server-with-samba.html": ["SMB shares"],
    "sect.ldap-directory.html": ["OpenLDAP"],
    "network-services.html": ["Postfix", "mail server"],
    "sect.http-web-server.html": ["Apache"],
    "sect.http-ftp-proxy.html": ["Squid"],
    "sect.supervision.html": ["intrusion detection"],
    "sect.task-scheduling-cron-atd.html": ["crontab"],
    "sect.x509-cert.html": ["easy-rsa", "own CA"],
    "sect.automated-installation.html": ["preseed", "FAI"],
    "sect.dhcp.html": ["isc-dhcp-server"],
    "sect.domain-name-servers.html": ["bind9"],
    "net-wireless-wepwpa": ["WPA2", "wifi encryption"],
    "backup-how": ["Déjà Dup"],
    "display-night-light": ["blue light filter"],
    "keyboard-osk": ["onscreen keyboard"],
    "power-closelid": ["lid switch"],
    "gitfaq.txt": ["git faq"],
    "howto/revert-a-faulty-merge.txt": ["revert the revert"],
    "howto/using-merge-subtree.txt": ["subtree merge"],
}
