#!/usr/bin/env python3
"""The variables of runtime/src/env.c's table and of docs/runtime-environment.md
are the same set: each name of the table has a row in the doc's table, and
each row of the doc names a variable of the table. With source directories,
also: every getenv("NAME") of COLLRT_* or COLLC_* in their C/C++ files is a
variable of the table (a new knob cannot skip the table and the doc).

usage: check_env_doc.py ENV_C DOC_MD [SOURCE_DIR...]"""
import os
import re
import sys

env_c, doc = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
table = re.search(r"collrt_env_vars\[\] = \{(.*?)\n\};", env_c, re.S)
if not table:
    sys.exit("check_env_doc: no collrt_env_vars table in " + sys.argv[1])
in_code = re.findall(r'\{"([A-Z][A-Z0-9_]*)", COLLRT_ENV_', table.group(1))
in_doc = re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", doc, re.M)
status = 0
for name in sorted(set(in_code) - set(in_doc)):
    print(f"check_env_doc: {name} is in env.c's table but has no row in {sys.argv[2]}")
    status = 1
for name in sorted(set(in_doc) - set(in_code)):
    print(f"check_env_doc: {name} has a row in {sys.argv[2]} but is not in env.c's table")
    status = 1
for name in sorted({n for n in in_code if in_code.count(n) > 1} | {n for n in in_doc if in_doc.count(n) > 1}):
    print(f"check_env_doc: {name} is listed more than once")
    status = 1
for root in sys.argv[3:]:
    for directory, _, files in os.walk(root):
        for name in files:
            if not name.endswith((".c", ".h", ".cpp")) or name == "env.c":
                continue
            path = os.path.join(directory, name)
            text = open(path, encoding="utf-8", errors="replace").read()
            for var in re.findall(r'getenv\("((?:COLLRT|COLLC)_[A-Z0-9_]*)"\)', text):
                if var not in in_code:
                    print(f"check_env_doc: {path} reads {var}, which is not in env.c's table")
                    status = 1
if not in_code:
    print("check_env_doc: found no variables")
    status = 1
if status == 0:
    print(f"check_env_doc: ok ({len(in_code)} variables)")
sys.exit(status)
