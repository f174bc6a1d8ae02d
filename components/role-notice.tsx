// A page this member's role does not open: what it is for and who can use it, instead of an error.
export function RoleNotice({ title, role, who }: { title: string; role: string; who: string }) {
  return (
    <div className="mx-auto max-w-2xl rounded-lg border border-zinc-200 bg-white p-6 text-sm text-zinc-600">
      <h1 className="mb-2 text-lg font-semibold text-zinc-900">{title}</h1>
      <p>
        You are a <span className="font-medium text-zinc-800">{role}</span> in this workspace. {who}
      </p>
    </div>
  );
}
