# Builds and installs trees with its manual pages and shell completions.
#
#   make                      release build
#   make install PREFIX=~/.local
#   make uninstall PREFIX=~/.local
#   make man                  regenerate man/ and completions/ after changing a command
#
# DESTDIR is honoured for packaging. BIN=path installs an already built binary instead of
# building a release one.

PREFIX ?= /usr/local
DESTDIR ?=
BIN ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
PAGES = $(notdir $(wildcard man/*.1))

.PHONY: all build install uninstall man test

all: build

# The Swift runtime and Foundation are linked in: the binary needs only the C libraries, and every
# command starts about 7 ms sooner (no dynamic linking of the Swift libraries).
RELEASE = swift build -c release --static-swift-stdlib

build:
	$(RELEASE) --product trees

install:
	@if [ -z "$(BIN)" ]; then $(RELEASE) --product trees; fi
	install -d "$(BINDIR)" "$(MANDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 755 "$${BIN:-$$($(RELEASE) --show-bin-path)/trees}" "$(BINDIR)/trees"
	install -m 644 $(addprefix man/,$(PAGES)) "$(MANDIR)/"
	install -m 644 completions/trees.bash "$(BASHDIR)/trees"
	install -m 644 completions/_trees "$(ZSHDIR)/_trees"
	install -m 644 completions/trees.fish "$(FISHDIR)/trees.fish"

uninstall:
	rm -f "$(BINDIR)/trees" $(addprefix "$(MANDIR)/,$(addsuffix ",$(PAGES)))
	rm -f "$(BASHDIR)/trees" "$(ZSHDIR)/_trees" "$(FISHDIR)/trees.fish"

man:
	scripts/generate-man

test:
	swift test
