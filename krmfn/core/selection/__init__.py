"""What is renamed: opt-in marks on objects and workloads (optin), the label selector (selector),
what a workload's marks opt in (adopt), and Secrets a controller fills, which are left alone (filled)."""
