"""Agent backends (offline and Claude), the tools they act through, the build, ask and eval."""
