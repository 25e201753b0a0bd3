"""The build's one step beyond pyproject.toml: the language catalogs (``.po``) compiled to ``.mo`` beside
them, with Babel, so that an installed package reads its languages without compiling them at start."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path(self.build_lib, "chessatron", "locale").glob("*/LC_MESSAGES/*.po"):
            with po.open("rb") as source:
                catalog = read_po(source, locale=po.parent.parent.name)
            with po.with_suffix(".mo").open("wb") as target:
                write_mo(target, catalog)


setup(cmdclass={"build_py": BuildWithCatalogs})
