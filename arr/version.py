"""The package's version, in a module of its own so stages can name it without importing the
package root (whose ``load_router`` reaches the whole house)."""

__version__ = "0.1.0"
