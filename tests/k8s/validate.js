// Validates Kubernetes manifests against the Kubernetes API's schemas, as
// the kubernetes-models package carries them, twice:
//  - its validate(): the JSON schemas compiled (types, required fields,
//    enums, formats);
//  - its TypeScript definitions, generated from the same OpenAPI document,
//    type-check each object as a literal: that also refuses a field the API
//    does not have (a misspelt readOnlyRootFilesystem would be dropped by the
//    API server, silently, the way `kubectl apply --validate=strict` refuses).
// usage: node validate.js FILE...
// Prints one line per object; exit 0 when every object of every file is
// valid, 1 when one is not (or a file does not parse, or names a kind the
// schemas lack), 2 on a usage error. Run by tests/k8s/t_manifests.sh.
"use strict";
const fs = require("fs");
const path = require("path");
const YAML = require("yaml");
const ts = require("typescript");

// apiVersion "apps/v1" + kind "DaemonSet" -> kubernetes-models/apps/v1/DaemonSet
function model(apiVersion, kind) {
	if (typeof apiVersion !== "string" || typeof kind !== "string" ||
	    !/^[A-Za-z0-9.\/-]+$/.test(apiVersion) || !/^[A-Za-z0-9]+$/.test(kind))
		return null;
	try {
		return require(`kubernetes-models/${apiVersion}/${kind}`)[kind];
	} catch (e) {
		return null;
	}
}

if (process.argv.length < 3) {
	console.error("usage: node validate.js FILE...");
	process.exit(2);
}
let bad = 0;
const typed = [];	// { where, name, source } for the type check
for (const file of process.argv.slice(2)) {
	const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"), { strict: true, uniqueKeys: true });
	docs.forEach((doc, i) => {
		const where = `${file}#${i}`;
		if (doc.errors.length) {
			bad++;
			console.log(`invalid ${where}: YAML: ${doc.errors.map((e) => e.message).join("; ")}`);
			return;
		}
		const obj = doc.toJS();
		if (obj === null)
			return;		// an empty document (a trailing ---)
		const M = model(obj.apiVersion, obj.kind);
		const name = `${obj.kind} ${obj.metadata && obj.metadata.name}`;
		if (!M) {
			bad++;
			console.log(`invalid ${where}: no schema for apiVersion ${obj.apiVersion} kind ${obj.kind}`);
			return;
		}
		try {
			new M(obj).validate();
			console.log(`schema ok ${where}: ${name}`);
			typed.push({ where, name, source:
				`import { I${obj.kind} } from "kubernetes-models/${obj.apiVersion}/${obj.kind}";\n` +
				`export const o: I${obj.kind} = ${JSON.stringify(obj, null, 1)};\n` });
		} catch (e) {
			bad++;
			const errs = (e.errors || []).map((x) => `${x.instancePath} ${x.message}`).join("; ");
			console.log(`invalid ${where}: ${name}: ${errs || e.message}`);
		}
	});
}

// Each object is one virtual module beside this script, so that its import
// resolves in node_modules here; nothing is written.
if (typed.length) {
	const names = typed.map((t, i) => path.join(__dirname, `manifest-${i}.ts`));
	const opts = { strict: true, noEmit: true, skipLibCheck: true, types: [],
		       module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020,
		       moduleResolution: ts.ModuleResolutionKind.Node10 };
	const host = ts.createCompilerHost(opts);
	const getSourceFile = host.getSourceFile;
	host.getSourceFile = (f, lang, ...rest) => {
		const i = names.indexOf(path.resolve(f));
		return i >= 0 ? ts.createSourceFile(f, typed[i].source, lang) : getSourceFile(f, lang, ...rest);
	};
	const fileExists = host.fileExists;
	host.fileExists = (f) => names.includes(path.resolve(f)) || fileExists(f);
	const prog = ts.createProgram(names, opts, host);
	for (const d of ts.getPreEmitDiagnostics(prog)) {
		const i = d.file ? names.indexOf(path.resolve(d.file.fileName)) : -1;
		const msg = ts.flattenDiagnosticMessageText(d.messageText, "; ");
		bad++;
		if (i < 0) {
			console.log(`invalid: the type check failed: ${msg}`);
			continue;
		}
		// The line within the object (its JSON, one field a line).
		const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
		console.log(`invalid ${typed[i].where}: ${typed[i].name}: line ${line} of the object: ${msg}`);
	}
}
process.exit(bad ? 1 : 0);
