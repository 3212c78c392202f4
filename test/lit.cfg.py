# -*- Python -*-
# lit configuration for collc: dialect, pass, CLI and runtime tests.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "COLLC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.collc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
# For tests that link the runtime core into a small C program.
config.substitutions.append(("%collrt_include", os.path.join(config.collc_src_root, "runtime", "include")))
config.substitutions.append(("%collrt_core_lib", os.path.join(config.collc_obj_root, "lib", "libcollrt_core.a")))
config.substitutions.append(("%examples", os.path.join(config.collc_src_root, "examples")))
# MPICH's hydra: allow oversubscription and keep runs independent of the
# caller's environment; -n is given per test.
config.substitutions.append(("%mpiexec", config.mpiexec))
# The ranks of these runs outnumber the cores; MPICH busy-polls, so they
# yield when a poll finds nothing (runtime/test/yield_when_idle.c: scheduling
# only, every check stays). mpiexec passes the environment to the ranks; a
# test that sets its own LD_PRELOAD runs without it.
yield_lib = os.path.join(config.collc_obj_root, "lib", "libcollc_test_yield.so")
if os.path.exists(yield_lib):
    config.environment["LD_PRELOAD"] = yield_lib

llvm_config.with_system_environment(["HOME", "USER", "TMPDIR", "HYDRA_LAUNCHER"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.collc_tools_dir, append_path=True)

tool_dirs = [config.collc_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("%collc", os.path.join(config.collc_tools_dir, "collc")),
    ToolSubst("%collc-opt", os.path.join(config.collc_tools_dir, "collc-opt")),
    ToolSubst("%collc-run", os.path.join(config.collc_tools_dir, "collc-run")),
    ToolSubst("%collc-expand-bench", os.path.join(config.collc_tools_dir, "collc-expand-bench")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
